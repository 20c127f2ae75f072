import Foundation
import PackagePlugin

/// Writes `BuildInfo+Commit.swift` into the target before each build: the commit the package is
/// built from (`git rev-parse`), with `+changes` when tracked files differ from it, or `unknown`
/// outside a git checkout. The file is rewritten only when that changes, so it costs no rebuild.
@main
struct BuildInfoPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildInfo+Commit.swift")
        let script = """
            commit=$(git -C "$1" rev-parse --short=12 HEAD 2>/dev/null) || commit=unknown
            if [ "$commit" != unknown ] && [ -n "$(git -C "$1" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
                commit="$commit+changes"
            fi
            text="extension BuildInfo { package static let commit = \\"$commit\\" }"
            [ "$(cat "$2" 2>/dev/null)" = "$text" ] || printf '%s\\n' "$text" > "$2"
            """
        return [
            .prebuildCommand(
                displayName: "Recording the commit dfu-update is built from",
                executable: URL(fileURLWithPath: "/bin/sh"),
                arguments: ["-c", script, "build-info", context.package.directoryURL.path, output.path],
                outputFilesDirectory: context.pluginWorkDirectoryURL)
        ]
    }
}
