/// The operator's part of a rollout's page: pause, resume and cancel for a logged-in operator
/// (POST forms carrying the session's CSRF value), a form for the token otherwise, or a word
/// that the page is read-only when the server has no token.
enum OperatorControls {
    enum Access {
        case readOnly
        case loggedOut
        case steering(csrf: String)
    }

    static func html(rollout: String, access: Access) -> String {
        let path = "/rollouts/\(HTMLText.queryValue(rollout))"
        switch access {
        case .readOnly:
            return
                "<p>Read-only: start <code>rollout serve</code> with <code>--operator-token-file</code> to steer from here.</p>"
        case .loggedOut:
            return
                "<form method=\"post\" action=\"/login\"><input type=\"hidden\" name=\"next\" value=\"\(path)\">"
                + "<label>Operator token <input type=\"password\" name=\"token\" autocomplete=\"off\"></label> "
                + "<button type=\"submit\">Log in to steer</button></form>"
        case .steering(let csrf):
            let buttons = ["pause", "resume", "cancel"].map { command in
                "<form class=\"inline\" method=\"post\" action=\"\(path)/\(command)\">"
                    + "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLText.escape(csrf))\">"
                    + "<button type=\"submit\" id=\"\(command)\">\(command.capitalized)</button></form> "
            }
            return "<p id=\"controls\">\(buttons.joined())"
                + "<form class=\"inline\" method=\"post\" action=\"/logout\">"
                + "<input type=\"hidden\" name=\"csrf\" value=\"\(HTMLText.escape(csrf))\">"
                + "<button type=\"submit\">Log out</button></form></p>"
        }
    }
}
