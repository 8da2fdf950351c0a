/// Help for every command; `release <command> --help` prints the command's text.
enum HelpText {
  /// `release --help`: the commands come from `Command.all`.
  static var overview: String {
    let rows =
      Command.all.flatMap { command in
        command.subcommands.isEmpty
          ? [(command.synopsis, command.summary)] : command.subcommands.map { ($0.synopsis, $0.summary) }
      } + [("help [command]", "show help for a command")]
    // As wide as the longest synopsis: a synopsis is never cut.
    let width = rows.map(\.0.count).max() ?? 0
    let commands = rows.map { synopsis, summary in
      "  " + synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary
    }
    return """
      release — build and ship a custom copy of the SDK to every customer

      USAGE: release <command> [options]

      COMMANDS:
      \(commands.joined(separator: "\n"))

      Run 'release <command> --help' for a command's options.
      Exit status: 0 success, 1 a build, test or publish failed, 2 bad input or arguments.
      """
  }

  static let sharedOptions = """
    INPUTS:
      --manifest <file>   customer manifest (default: customers.json)
      --models <dir|url>  model store: a directory laid out <flowName>/<version>.mlmodel
                          (default: models), or http(s)://… / s3://bucket/prefix holding an
                          index.json; downloads are verified by SHA-256 and cached in --cache
      --templates <dir>   SDK package template (default: templates/ContextSDK)
      --state <file>      version state file (default: release-state.json)
      --rollouts <file>   what devices are offered over the air (default: rollouts.json);
                          published with the packages by --publish
      --dist <dir>        output directory (default: dist)
      --cache <dir>       warm build slots and scratch packages (default: .release-cache)
      --config <file>     publishing defaults (default: release.config.json, if present)

    BEHAVIOUR:
      --jobs <n>          customers built in parallel (default: number of cores)
      --dry-run           print the plan and what would be written; write nothing
      --force             rebuild customers that are up to date in dist/
      --fail-fast         stop starting customers after the first failure
      --shard <k/N>       build only shard k of N ('release plan --shards N' shows them);
                          writes dist/shard.json; publishes, tags and records nothing
      --skip-tests        build but do not run 'swift test' (debugging only)
      --json              newline-delimited JSON events on stdout
      -h, --help          show this help

    PUBLISHING (after every customer succeeded and passed the content checks):
      --publish <dest>    dir:<path> | s3://<bucket>[/<prefix>] | git:<location with {id}>;
                          repeatable; replaces release.config.json's destinations.
                          Artifacts first (create-only), then indexes.
      --no-publish        ignore the destinations of release.config.json
      --publish-passed    with some customers failed, still publish, tag and record those that
                          passed (the run exits 1); default: all or nothing
      --s3-endpoint <url> S3-compatible endpoint (R2, MinIO, moto); credentials from
                          AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN)
      --s3-region <name>  signing region (default: AWS_REGION, else us-east-1; R2: auto)
      --public-url <url>  where the destination is served; base of the URLs in indexes
      --tag               tag the project repo (<id>/v<version>, v<sdk>) on HEAD, which must be
                          clean and record the release in the state file; implied by --publish
      --push              push the run's tags to --remote
      --remote <name>     remote to push tags to (default: origin)
      --allow-dirty       tag even with uncommitted changes or an unrecorded release
    """

  static let all = """
    release all — build, test and archive every customer in the manifest

    USAGE: release all [options]

    Each customer's package is generated from the template with only its own models, built
    and tested with 'swift build' and 'swift test', zipped reproducibly and written to
    dist/<id>/<version>/ with its .sha256 and release.json. Customers whose inputs did not
    change since the build in dist/ are skipped as up to date.

    """ + sharedOptions

  static let customer = """
    release customer — build, test and archive the named customers

    USAGE: release customer <id|app_id>... [options]

    Same work as 'release all', for the named customers only. A customer is named by its
    'id' slug (e.g. acme) or its app_id. The generated package stays in
    <cache>/packages/<id>/ after the run, for inspection; the log is dist/logs/<id>.log.

    """ + sharedOptions

  static let bump = """
    release bump — bump the SDK version everywhere it appears

    USAGE: release bump major|minor|patch [--dry-run]

    Updates release-state.json, the template's version constant
    (templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift), CHANGELOG.md (a new
    section with today's date and the commits since the tag of the previous SDK version)
    and versions in README.md code blocks. Prints the change as a unified diff.

    OPTIONS:
      --dry-run           print the diff, write nothing
      --state <file>      version state file (default: release-state.json)
      --templates <dir>   SDK package template (default: templates/ContextSDK)
    """

  static let verify = """
    release verify — check generated packages the way a customer's engineer would

    USAGE: release verify <zip | release dir | dist dir | release.json>... [options]

    Content checks: the zip opens with libarchive and is safe (no absolute paths, no '..',
    no links, one top-level directory); size and SHA-256 match release.json and the .sha256
    file; every file is listed in release.json with its SHA-256; the models are exactly the
    customer's in the manifest; no file is any other model of the store. Then the package is
    extracted (libarchive secure flags) into a temporary directory, built and tested, and a
    consumer package depending on it by path is built and run, calling the SDK for each flow.

    OPTIONS:
      --no-build          content checks only
      --manifest <file>   manifest to check against (default: customers.json)
      --models <dir>      model store for the foreign-model scan (default: models)
      --public-url <url>  the --public-url the release was built with (default: publish.publicURL
                          of release.config.json); the package's manifest URL is made from it

    Exit status: 0 all verified, 1 a check failed, 2 bad arguments or input.
    """

  /// The inputs of the over-the-air commands, for their help.
  static let otaInputs = """
      --rollouts <file>   rollout state (default: rollouts.json; created on first rollout)
      --manifest <file>   customer manifest (default: customers.json)
      --models <dir|url>  model store (default: models)
      --templates <dir>   SDK package template, for signals.json (default: templates/ContextSDK)
      --state <file>      version state file, for the SDK version (default: release-state.json)
      --cache <dir>       where a URL model store's downloads are kept (default: .release-cache)
      --s3-endpoint <url>, --s3-region <name>
                          for an s3:// model store
    """

  /// `rollout`, `pause` and `rollback`: they change rollouts.json.
  static let changeOptions = """
    OPTIONS:
      --dry-run           print the change to rollouts.json as a diff; write nothing

    """ + otaInputs

  static let rollout = """
    release rollout — offer a model over the air to a share of a customer's devices

    USAGE: release rollout <customer> <flow> <modelVersion> --percent <0-100> [options]

    Offers the store's model to the given share of the customer's devices: a new challenger,
    or a new percentage for one already offered (100 promotes it). A device takes it when its
    bucket (from SHA-256 of the offer's salt and the device's install id) is below the
    percentage. Changes rollouts.json and prints the change as a diff; commit it, then
    'release ota publish'. Refused: a customer or flow not in customers.json (a customer only
    gets models of its own flows), a version not above the bundled one, a model the SDK
    being released cannot run (signals.json), a model whose own metadata names another flow,
    version or flow id, a version that was rolled back.

    OPTIONS:
      --percent <n>       share of devices, 0 to 100 (required)
      --dry-run           print the change to rollouts.json as a diff; write nothing

    """ + otaInputs

  static let pause = """
    release pause — stop devices downloading new models of a flow

    USAGE: release pause <customer> <flow> [options]

    Devices download nothing new for the flow and keep the model they run. 'release rollout'
    resumes the flow.

    """ + changeOptions

  static let rollback = """
    release rollback — retract a model offered over the air

    USAGE: release rollback <customer> <flow> <modelVersion> [options]

    Devices that downloaded the version delete it and fall back to the best remaining offer or
    the bundled model. A retracted version is never offered again.

    """ + changeOptions

  static let ota = """
    release ota — over-the-air models: what is offered, and publishing it

    USAGE: release ota status [<customer>] [options]
           release ota publish [--publish <dest>]... [options]

    SUBCOMMANDS:
      status              a table of what each customer's flows offer over the air, to how many
                          percent, and the oldest SDK version that can run each offer
      publish             publish the manifests and their models only (no build, no tags)

    Run 'release ota <subcommand> --help' for its options.
    """

  static let otaStatus = """
    release ota status — what each flow offers over the air

    USAGE: release ota status [<customer>] [options]

    A table of every customer's flows (or the named customer's): the bundled version, each
    version offered over the air with its percentage and status, and the oldest SDK version
    that can run it. Reads rollouts.json; writes nothing.

    OPTIONS:

    """ + otaInputs

  static let otaPublish = """
    release ota publish — publish the over-the-air manifests and their models

    USAGE: release ota publish [--publish <dest>]... [options]

    From the work tree as it is (no build, no tags, no push): uploads every offered model as
    ota/models/<sha256>.mlmodel (create-only), then, for each customer whose offer changed,
    the next revision as ota/<id>/models-<revision>.json and the pointer ota/<id>/models.json,
    replaced only if it still holds the revision that was read. Destinations: --publish, else
    release.config.json's publish.destinations; when those are all git: releases repositories,
    publish.otaDestination. Refused before anything is published (exit 2): no destination, an
    offered model that is missing from the store, that the SDK being released cannot run or
    whose metadata disagrees with where it is offered, a published models.json this tool did
    not write.

    OPTIONS:
      --publish <dest>    dir:<path> | s3://<bucket>[/<prefix>]; repeatable
      --public-url <url>  where the destination is served; base of the model URLs in manifests
      --s3-endpoint <url> S3-compatible endpoint (R2, MinIO, moto); credentials from
                          AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN)
      --s3-region <name>  signing region (default: AWS_REGION, else us-east-1; R2: auto)
      --config <file>     publishing defaults (default: release.config.json, if present)
      --dry-run           print what would be published; publish nothing
      --json              newline-delimited JSON events on stdout
      --rollouts <file>   rollout state (default: rollouts.json)
      --manifest <file>   customer manifest (default: customers.json)
      --models <dir|url>  model store (default: models)
      --templates <dir>   SDK package template, for signals.json (default: templates/ContextSDK)
      --state <file>      version state file, for the SDK version (default: release-state.json)
      --cache <dir>       where a URL model store's downloads are kept (default: .release-cache)
      --max-model-size <size>
                          bytes one model of a URL store may have (default: 512MB)
    """

  static let plan = """
    release plan — split the customers over N CI machines

    USAGE: release plan --shards <n> [--json] [options]

    Prints which customers each shard builds, and the feature sets among them: customers to
    build are cut into equal runs by feature set (each set costs a machine a first build or
    a switch), up-to-date ones (which cost nothing) are dealt out in turn; every customer is in
    exactly one shard, and the same inputs always give the same plan. Each machine then runs
    'release all --shard k/N' and one job runs 'release merge' on their dist/ directories.
    --json prints {"planDigest": …, "shards": [{"shard": 1, "customers": […], "building": n}],
    "features": {"<id>": ["<feature>", …]}}. Writes nothing but the store's digest cache.

    """ + sharedOptions

  static let merge = """
    release merge — join the dist/ directories of the shards into one release

    USAGE: release merge <dist>... [--dist <out>] [options]

    Refuses (exit 2, nothing written) a missing shard, a shard given twice, shards made from
    different plans or toolchains than each other or this checkout, a customer in two shards.
    Copies every release and log into --dist (default: dist), then runs what follows a build
    in 'release all': the content checks, dist/artifacts.json, dist/report.xml, and with
    --publish / --tag / --push the same publishing, tagging and state changes. The result is
    byte for byte what one 'release all' on one machine makes (logs and timings aside). A
    customer that failed in its shard fails the merge (or, with --publish-passed, is left out).

    """ + sharedOptions
}
