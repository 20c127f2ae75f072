import ArgumentParser

/// What `rollout status|pause|resume|cancel` take: the rollout, its store, the output.
struct RolloutTargetOptions: ParsableArguments {
    @Argument(help: "The rollout's name.")
    var name: String

    @OptionGroup var store: StoreOptions

    @Flag(help: "Print one JSON object (docs/cli-contract.md).")
    var json = false

    @OptionGroup var logging: LoggingOptions
}
