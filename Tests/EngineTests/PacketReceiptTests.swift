import FirmwareUpdate
import NordicDFU
import XCTest

/// Packet receipts on Secure DFU, against a scripted SDK 15–17 bootloader whose notifications
/// lag the client's writes (`ScriptedLink`): the receipts for a burst of packets arrive after
/// the next request, where a receipt and a Calculate Checksum response look the same.
final class PacketReceiptTests: XCTestCase {
    /// Issue 9's race, in a fixed delivery order: a packet near the end of the first object
    /// lost (drop numbers count every data packet written, resent ones included), then the
    /// resent tail's receipts arriving after Calculate Checksum was asked. Taking one
    /// of them for the checksum made the engine resend past the object's end, and the
    /// bootloader answered invalidParameter. Packets lost mid-object leave a hole (the
    /// bootloader writes what comes next at the next offset): the object is created again.
    func testReceiptsAfterLostPacketsAreNotTakenForTheChecksum() async throws {
        let package = try TestPackages.secureApp()
        for counts in [false, true] {
            for prn: UInt16? in [1, 12, nil] {
                for dropped: Set<Int> in [[15], [16], [17], [2, 3, 4]] {
                    let update = await ScriptedUpdate.secure(package, options: Self.options(prn: prn)) {
                        $0.droppedPackets = dropped
                        $0.countsDroppedPackets = counts
                    }
                    let label =
                        "PRN \(prn.map(String.init) ?? "auto"), dropped \(dropped.sorted()), counted: \(counts)"
                    XCTAssertEqual(update.result.outcome, .completed, "\(label): \(update.logs)")
                    XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware, label)
                }
            }
        }
    }

    /// By default the receipt interval is one object's packets: the receipt for each full
    /// object's last packet carries its offset and CRC, so only the init packet is checksummed.
    func testReceiptOnEachObjectsLastPacketReplacesCalculateChecksum() async throws {
        let package = try TestPackages.secureApp()  // 12288 bytes: three full objects
        let update = await ScriptedUpdate.secure(package, options: Self.options(prn: nil))
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware)
        XCTAssertEqual(update.checksumRequests, 1, "only the init packet is checksummed")
    }

    /// The receipt interval is set once, before the init packet, for the usual 4096-byte data
    /// object: the init packet streams under it and the data objects need no second Set PRN.
    func testReceiptIntervalIsSetOnceBeforeTheInitPacket() async throws {
        let package = try TestPackages.secureApp()
        let update = await ScriptedUpdate.secure(package, options: Self.options(prn: nil))
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertEqual(update.receiptIntervalRequests, 1)
        let setPRN = update.requestOpCodes.firstIndex(
            of: SecureDFURequest.setPacketReceiptNotification(0).opCode)
        let create = update.requestOpCodes.firstIndex(of: SecureDFURequest.create(.command, size: 0).opCode)
        XCTAssertLessThan(try XCTUnwrap(setPRN), try XCTUnwrap(create))
    }

    /// A bootloader with another data object size gets the interval for its objects once Select
    /// (data) has shown the size; every full object's receipt still replaces the checksum.
    func testAnotherDataObjectSizeSetsTheIntervalAgain() async throws {
        let package = try TestPackages.secureApp()  // 12288 bytes: six full 2048-byte objects
        let update = await ScriptedUpdate.secure(package, options: Self.options(prn: nil)) {
            $0.objectSize = 2048
        }
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware)
        XCTAssertEqual(update.receiptIntervalRequests, 2)
        XCTAssertEqual(update.checksumRequests, 1, "only the init packet is checksummed")
    }

    /// Without a wait after Create, an object's packets go once the device has the Create (its
    /// write response), before its answer is taken: a refused Create still ends the update with
    /// the bootloader's error, after the packets it refused. With a wait, they wait for the
    /// answer.
    func testPacketsFollowTheCreateWithoutWaitingForItsAnswerUnlessAWaitIsDue() async throws {
        let package = try TestPackages.secureApp()
        for delay: Duration in [.zero, .milliseconds(1)] {
            var options = Self.options(prn: nil)
            options.nordic.dataObjectPreparationDelay = delay
            let update = await ScriptedUpdate.secure(package, options: options) {
                $0.refusesDataObjects = true
            }
            XCTAssertEqual(update.result.failure?.error, .remoteSecureDFUInsufficientResources, update.logs)
            let written = update.link.bootloader.dataPacketsWritten
            if delay == .zero {
                XCTAssertGreaterThan(written, 0, "packets went before the answer")
            } else {
                XCTAssertEqual(written, 0, "packets waited for the answer")
            }
        }
    }

    /// A last object shorter than the others gets no receipt on its last packet: it is
    /// checksummed.
    func testShorterLastObjectIsChecksummed() async throws {
        let firmware = (0..<10_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let package = try DFUPackage.unsignedSecureApplication(firmware: firmware, version: 2)
        let update = await ScriptedUpdate.secure(package, options: Self.options(prn: nil))
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == firmware)
        XCTAssertEqual(update.checksumRequests, 2, "the init packet and the 1808-byte last object")
    }

    /// A bootloader that never sends the receipt: each object falls back to Calculate Checksum,
    /// the first two after the receipt's timeout; then the engine turns receipts off (Set PRN 0)
    /// and waits for none.
    func testMissingReceiptsFallBackToCalculateChecksum() async throws {
        let package = try TestPackages.secureApp()
        var options = Self.options(prn: nil)
        options.notificationTimeout = .milliseconds(200)
        let update = await ScriptedUpdate.secure(package, options: options) { $0.sendsReceipts = false }
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware)
        XCTAssertEqual(update.checksumRequests, 4, "the init packet and each of the three objects")
        let timeouts =
            update.logs.components(separatedBy: "a packet receipt notification did not arrive").count - 1
        XCTAssertEqual(timeouts, 2, "receipts waited for after two went missing: \(update.logs)")
        XCTAssertEqual(update.lastReceiptInterval, SecureDFURequest.setPacketReceiptNotification(0).encoded)
    }

    /// A bootloader whose count Create does not restart: with the init packet counted, the
    /// receipts land a packet before each object's end; each object is then checksummed, and
    /// after two such objects the engine turns receipts off (Set PRN 0).
    func testDeviceThatCountsAcrossObjectsIsChecksummed() async throws {
        let package = try TestPackages.secureApp()  // 12288 bytes: three full objects
        let update = await ScriptedUpdate.secure(package, options: Self.options(prn: nil)) {
            $0.restartsCountOnCreate = false
        }
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware)
        XCTAssertEqual(update.checksumRequests, 4, "the init packet and each of the three objects")
        XCTAssertEqual(update.lastReceiptInterval, SecureDFURequest.setPacketReceiptNotification(0).encoded)
        XCTAssertFalse(update.logs.contains("[warning] receipt for"), "no packet was lost: \(update.logs)")
    }

    /// A receipt interval the user chose stays, even when the device sends none.
    func testChosenReceiptIntervalStaysWhenReceiptsGoMissing() async throws {
        let package = try TestPackages.secureApp()
        var options = Self.options(prn: 4)
        options.notificationTimeout = .milliseconds(100)
        let update = await ScriptedUpdate.secure(package, options: options) { $0.sendsReceipts = false }
        XCTAssertEqual(update.result.outcome, .completed, update.logs)
        XCTAssertTrue(update.link.bootloader.image == package.images[0].firmware)
        let intervals = update.link.requests.filter {
            $0.first == SecureDFURequest.setPacketReceiptNotification(0).opCode
        }
        XCTAssertFalse(
            intervals.contains(SecureDFURequest.setPacketReceiptNotification(0).encoded), update.logs)
    }

    static func options(prn: UInt16?) -> DFUOptions {
        var options = EngineHarness.testOptions(prn: prn)
        // A receipt for a dropped packet never comes; keep that wait short.
        options.notificationTimeout = .milliseconds(300)
        return options
    }
}
