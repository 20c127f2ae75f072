import NordicDFU

extension DFUProtocol {
    /// The engine's name of one of Nordic's DFU protocols.
    public init(_ nordic: NordicDFUProtocol) {
        switch nordic {
        case .secure: self = .secure
        case .legacy: self = .legacy
        }
    }
}
