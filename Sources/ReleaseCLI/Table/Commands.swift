import ReleaseCore
import ReleasePipeline
import ReleaseSettings

/// The command table: every command's description, in the order the overview lists them.
extension Command {
  static let all: [Command] = [
    Command(
      name: "all", synopsis: "all", summary: "release every customer in the manifest",
      title: "build, test and archive every customer in the manifest",
      discussion: """
        Each customer's package is generated from the template with only its own models, built \
        and tested with 'swift build' and 'swift test', zipped reproducibly and written to \
        dist/<id>/<version>/ with its .sha256 and release.json. Customers whose inputs did not \
        change since the build in dist/ are skipped as up to date.
        """,
      arity: .none(.customerNames), groups: [.inputs, .s3, .behaviour, .publishing, .signing],
      refusals: [Options.shards.name: shardsRefusal],
      run: { try ReleaseCommand.run(try RunSettings.all($0, $1), $1) }),
    Command(
      name: "customer", synopsis: "customer <id>...", summary: "release the named customers (slug or app_id)",
      title: "build, test and archive the named customers",
      discussion: """
        Same work as 'release all', for the named customers only. The generated package stays in \
        <cache>/packages/<id>/ after the run, for inspection; the log is dist/logs/<id>.log.
        """,
      positionals: [
        Positional(label: "<id|app_id>...", help: "a customer's 'id' slug (e.g. acme) or its app_id")
      ], arity: .oneOrMore(missing: "expected at least one customer id or app_id, found none"),
      groups: [.inputs, .s3, OptionGroup.behaviour.without(Options.shard), .publishing, .signing],
      refusals: [Options.shard.name: shardRefusal, Options.shards.name: shardsRefusal],
      run: { try ReleaseCommand.run(try RunSettings.customer($0, $1), $1) }
    ),
    Command(
      name: "plan", synopsis: "plan --shards <n>", summary: "split the customers over n CI machines",
      title: "split the customers over N CI machines", usage: ["plan --shards <n> [--json] [options]"],
      discussion: """
        Prints which customers each shard builds, and the feature sets among them: customers to \
        build are cut into equal runs by feature set (each set costs a machine a first build or a \
        switch), up-to-date ones (which cost nothing) are dealt out in turn; every customer is in \
        exactly one shard, and the same inputs always give the same plan. Each machine then runs \
        'release all --shard k/N' and one job runs 'release merge' on their dist/ directories. \
        --json prints {"planDigest": …, "shards": [{"shard": 1, "customers": […], "building": n}], \
        "features": {"<id>": ["<feature>", …]}}. Writes nothing but the store's digest cache.
        """,
      arity: .none(.customerNames),
      groups: [
        OptionGroup("PLAN", [Options.shards]), .inputs, .s3, OptionGroup.behaviour.without(Options.shard),
        .publishing,
      ],
      refusals: [Options.shard.name: shardRefusal],
      run: { try PlanCommand.run(try PlanOptions($0, $1), $1) }),
    Command(
      name: "merge", synopsis: "merge <dist>...",
      summary: "join the shards' dist/s into one release (then publish, tag)",
      title: "join the dist/ directories of the shards into one release",
      usage: ["merge <dist>... [--dist <out>] [options]"],
      discussion: """
        Refuses (exit 2, nothing written) a missing shard, a shard given twice, shards made from \
        different plans or toolchains than each other or this checkout, a customer in two shards. \
        Copies every release and log into --dist, then runs what follows a build in 'release all': \
        the content checks, dist/artifacts.json, dist/report.xml, and with --publish / --tag / \
        --push the same publishing, tagging and state changes. The result is byte for byte what \
        one 'release all' on one machine makes (logs and timings aside). A customer that failed \
        in its shard fails the merge (or, with --publish-passed, is left out).
        """,
      positionals: [Positional(label: "<dist>...", help: "the dist/ directories of the shards")],
      arity: .oneOrMore(missing: "expected the dist/ directories of the shards, found none"),
      groups: [
        .inputs, .s3, OptionGroup.behaviour.without(Options.force, Options.shard), .publishing, .signing,
      ],
      refusals: [
        Options.force.name: "a merge builds nothing; rebuild in the shards", Options.shard.name: shardRefusal,
        Options.shards.name: shardsRefusal,
      ],
      run: { try ReleaseCommand.run(try RunSettings.merge($0, $1), $1) }
    ),
    Command(
      name: "verify", synopsis: "verify <path>...", summary: "check generated packages before they go out",
      title: "check generated packages the way a customer's engineer would",
      usage: ["verify <zip | release dir | dist dir | release.json>... [options]"],
      discussion: """
        Content checks: the zip opens with libarchive and is safe (no absolute paths, no '..', no \
        links, one top-level directory); size and SHA-256 match release.json and the .sha256 \
        file; every file is listed in release.json with its SHA-256; the models are exactly the \
        customer's in the manifest; no file is any other model of the store; with <zip>.sig beside \
        the zip and signing.trustedKeys in release.config.json, the signature is a trusted key's \
        for these bytes (the key is named). Then the package is extracted (libarchive secure flags) into a temporary directory, built and tested \
        (the compiler must print no warning), and a consumer package depending on it by path is \
        built and run, calling the SDK for each flow.
        """,
      positionals: [
        Positional(
          label: "<path>...",
          help: "a release's zip, its directory or release.json, or a whole dist directory")
      ],
      arity: .oneOrMore(
        missing: "expected a zip, a release directory, a dist directory or a release.json; found none"),
      groups: [
        OptionGroup("OPTIONS", [Options.noBuild, Options.timeout]),
        OptionGroup(
          "INPUTS (what the packages were made from)",
          [
            Options.manifest, Options.storeDirectory, Options.maxModelSize, Options.templates, Options.state,
            Options.config, Options.publicURL,
          ]),
      ],
      footer: "Exit status: 0 all verified, 1 a check failed, 2 bad arguments or input.",
      run: { try VerifyCommand.run(try VerifyOptions($0, $1), $1) }),
    Command(
      name: "bump", synopsis: "bump <part>",
      summary: "bump the SDK version (major, minor or patch) everywhere it appears",
      title: "bump the SDK version everywhere it appears", usage: ["bump major|minor|patch [options]"],
      discussion: """
        Updates release-state.json, the template's version constant \
        (templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift), CHANGELOG.md (a new \
        section with today's date and the commits since the previous SDK version: after its tag \
        v<version>, else after the newest v* tag, else after the commit that added its CHANGELOG \
        section or set its version constant, or after --since) and versions in README.md code \
        blocks. Prints the change as a unified diff.
        """,
      positionals: [Positional(label: "major|minor|patch", help: "the part of the SDK version to bump")],
      arity: .oneOf(SemanticVersion.Part.allCases.map(\.rawValue)),
      groups: [
        OptionGroup("OPTIONS", [Options.dryRun, Options.bumpSince, Options.state, Options.templates])
      ],
      run: { try BumpCommand.run(try BumpOptions($0), $1) }),
    Command(
      name: "rollout", synopsis: "rollout <id> <flow> <version>",
      summary: "offer a model over the air to a share of a customer's devices",
      usage: ["rollout <customer> <flow> <modelVersion> --percent <0-100> [options]"],
      discussion: """
        Offers the store's model to the given share of the customer's devices: a new challenger, \
        or a new percentage for one already offered (100 promotes it). A device takes it when its \
        bucket (from SHA-256 of the offer's salt and the device's install id) is below the \
        percentage. Changes rollouts.json and prints the change as a diff; commit it, then \
        'release ota publish'. Refused: a customer or flow not in customers.json (a customer only \
        gets models of its own flows), a version not above the bundled one, a model the SDK being \
        released cannot run (signals.json), a model whose own metadata names another flow, \
        version or flow id, a version that was rolled back.
        """,
      positionals: RolloutOptions.positionals(withVersion: true),
      arity: .exactly(3, expected: "<customer> <flow> <modelVersion>"),
      groups: [OptionGroup("OPTIONS", [Options.percent, Options.dryRun]), .otaInputs],
      run: { try RolloutCommand.run(try RolloutOptions($0, $1, verb: .rollout), $1) }),
    Command(
      name: "pause", synopsis: "pause <id> <flow>", summary: "stop devices downloading new models of a flow",
      usage: ["pause <customer> <flow> [options]"],
      discussion: """
        Devices download nothing new for the flow and keep the model they run. 'release rollout' \
        resumes the flow.
        """,
      positionals: RolloutOptions.positionals(withVersion: false),
      arity: .exactly(2, expected: "<customer> <flow>"),
      groups: [OptionGroup("OPTIONS", [Options.dryRun]), .otaInputs],
      run: { try RolloutCommand.run(try RolloutOptions($0, $1, verb: .pause), $1) }),
    Command(
      name: "rollback", synopsis: "rollback <id> <flow> <version>",
      summary: "retract a model: devices delete it and fall back",
      title: "retract a model offered over the air",
      usage: ["rollback <customer> <flow> <modelVersion> [options]"],
      discussion: """
        Devices that downloaded the version delete it and fall back to the best remaining offer or \
        the bundled model. A retracted version is never offered again.
        """,
      positionals: RolloutOptions.positionals(withVersion: true),
      arity: .exactly(3, expected: "<customer> <flow> <modelVersion>"),
      groups: [OptionGroup("OPTIONS", [Options.dryRun]), .otaInputs],
      run: { try RolloutCommand.run(try RolloutOptions($0, $1, verb: .rollback), $1) }
    ),
    Command(
      name: "ota", synopsis: "ota <subcommand>", summary: "over-the-air models: status, publish, evaluate",
      title: "over-the-air models: what is offered, publishing it, judging challengers",
      usage: [
        "ota status [<customer>] [options]", "ota publish [--publish <dest>]... [options]",
        "ota evaluate [<customer> [<flow>]] --outcomes <file|url> [options]",
      ],
      subcommands: OTACommand.subcommands),
    Command(
      name: "keys", synopsis: "keys <subcommand>", summary: "signing keys: generate, allowed-signers, check",
      title: "the Ed25519 keys releases and over-the-air manifests are signed with",
      usage: [
        "keys generate <dir> [--name <name>]", "keys allowed-signers [--identity <name>] [options]",
        "keys check [--signing-key <file>]... [options]",
      ],
      subcommands: KeysCommand.subcommands),
    ShareCommand.command, helpCommand, versionCommand,
  ]

  /// The command called `name` (its aliases aside).
  static func named(_ name: String) -> Command? { all.first { $0.name == name } }

  /// The command the first word of a command line names: by its name or an alias.
  static func invoked(as word: String) -> Command? {
    all.first { $0.name == word || $0.aliases.contains(word) }
  }

  /// `release help [<command> [<subcommand>]]`: the overview, or a command's help;
  /// `release help --markdown`: the README's command table.
  static let helpCommand = Command(
    name: "help", synopsis: "help [command]", summary: "show help for a command",
    usage: ["help [<command> [<subcommand>]]", "help --markdown"],
    discussion: "With --markdown, prints the README's command table (every command and option) instead.",
    arity: .passthrough, aliases: ["-h", "--help"], listing: .overview,
    run: { arguments, invocation in
      let words = arguments.positionals
      let text =
        words == ["--markdown"]
        ? markdownTable
        : words.first.flatMap { named($0)?.help(for: Array(words.dropFirst())) } ?? overview
      invocation.services.output.write(linesOf: text, to: .standardOutput)
    })

  /// `release version` (or `--version`): the tool's name and version.
  static let versionCommand = Command(
    name: "version", synopsis: "version", summary: "print the tool's name and version", arity: .passthrough,
    aliases: ["--version"], listing: .hidden,
    run: { _, invocation in
      invocation.services.output.write(
        line: "\(ReleaseTool.name) \(ReleaseTool.version)", to: .standardOutput)
    })

  private static let shardRefusal = "only 'release all' builds a shard"
  private static let shardsRefusal = "only for 'release plan'; to build one shard use --shard k/N"
}
