import ReleaseNetwork
import ReleaseOTA

/// Every option of the command line, declared once with the type of its value, whether a
/// command needs it and the release.config.json key it defaults from; commands list them
/// through the groups below (or their own) and read them back typed by these values
/// (`arguments[Options.jobs]` is an `Int?`), never by their literal.
enum Options {
  // Inputs.
  static let manifest = Declare.path(
    "--manifest", "file", help: "customer manifest", default: "customers.json")
  static let models = Declare.text(
    "--models", "dir|url",
    help:
      "model store: a directory laid out <flowName>/<version>.mlmodel, or http(s)://… / s3://bucket/prefix holding an index.json; downloads are verified by SHA-256 and cached in --cache",
    default: "models", configuration: .models)
  /// `release verify`'s store: always a directory, whatever release.config.json names.
  static let storeDirectory = models.documented(
    help: "model store for the foreign-model scan", valueName: "dir", default: "models")
  static let maxModelSize = Declare.size(
    "--max-model-size", help: "bytes one model of the store may have, e.g. 512MB", default: "512MB")
  static let templates = Declare.path(
    "--templates", "dir", help: "SDK package template", default: "templates/ContextSDK")
  static let state = Declare.path(
    "--state", "file", help: "version state file (the SDK version, the releases)",
    default: "release-state.json")
  static let rollouts = Declare.path(
    "--rollouts", "file",
    help: "what devices are offered over the air; created on first rollout, published with the packages",
    default: "rollouts.json")
  static let dist = Declare.path("--dist", "dir", help: "output directory", default: "dist")
  static let cache = Declare.path(
    "--cache", "dir", help: "warm build slots, scratch packages and a URL model store's downloads",
    default: ".release-cache")
  static let config = Declare.path(
    "--config", "file", help: "publishing and model store defaults",
    default: "release.config.json, if present")

  // S3.
  static let s3Endpoint = Declare.text(
    "--s3-endpoint", "url",
    help:
      "S3-compatible endpoint (R2, MinIO, moto) of an s3:// store or destination; credentials from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY (/ AWS_SESSION_TOKEN)",
    configuration: .s3Endpoint)
  static let s3Region = Declare.text(
    "--s3-region", "name", help: "signing region; R2: auto", default: "AWS_REGION, else us-east-1",
    configuration: .s3Region)

  // Behaviour.
  static let jobs = Declare.integer(
    "--jobs", 1...64, help: "customers built in parallel", default: "number of cores")
  static let dryRun = Flag("--dry-run", help: "print the plan, or the change as a diff; write nothing")
  static let force = Flag("--force", help: "rebuild customers that are up to date in dist/")
  static let failFast = Flag("--fail-fast", help: "stop starting customers after the first failure")
  static let shard = Declare.text(
    "--shard", "k/N",
    help:
      "build only shard k of N ('release plan --shards N' shows them); writes dist/shard.json; publishes, tags and records nothing"
  )
  static let shards = Declare.integer(
    "--shards", 1...256, help: "how many machines share the work, 1 to 256",
    required: .init(reason: "how many machines share the work"))
  static let skipTests = Flag(
    "--skip-tests", help: "build but do not run 'swift test' (debugging only)")
  static let fullBuild = Flag(
    "--full-build",
    help: "test every customer with 'swift test', not only the first of each compile key (a nightly check)")
  static let timeout = Declare.duration(
    "--timeout", help: "time one 'swift build' or 'swift test' of a package may take, e.g. 20m",
    default: "30m")
  static let json = Flag("--json", help: "newline-delimited JSON events on stdout")

  // Publishing.
  static let publish = Declare.repeated(
    "--publish", "dest",
    help:
      "dir:<path> | s3://<bucket>[/<prefix>] | git:<location with {id}>; repeatable; replaces release.config.json's destinations. Artifacts first (create-only), then indexes",
    configuration: .destinations)
  /// `release ota publish`'s destinations: manifests and models go to files or buckets only.
  static let otaPublish = publish.documented(
    help:
      "dir:<path> | s3://<bucket>[/<prefix>], never a release destination in S3 (releases are private); repeatable",
    default: "the dir: destinations of publish.destinations", configuration: .otaDestination)
  static let noPublish = Flag("--no-publish", help: "ignore the destinations of release.config.json")
  static let publishPassed = Flag(
    "--publish-passed",
    help:
      "with some customers failed, still publish, tag and record those that passed (the run exits 1); otherwise all or nothing",
    configuration: .publishPassed)
  static let adoptUnsignedIndex = Flag(
    "--adopt-unsigned-index",
    help:
      "with signing.trustedKeys, take a customer index published unsigned (checked by you first) and sign it; otherwise one is refused"
  )
  static let publicURL = Declare.text(
    "--public-url", "url",
    help: "where the destination is served; base of the URLs in indexes and of each package's manifest URL",
    configuration: .publicURL)
  static let tag = Flag(
    "--tag",
    help:
      "tag the project repo (<id>/v<version>, v<sdk>) on HEAD, which must be clean, and record the release in the state file; implied by --publish"
  )
  static let push = Flag("--push", help: "push the run's tags to --remote")
  static let remote = Declare.text("--remote", "name", help: "remote to push tags to", default: "origin")
  static let allowDirty = Flag(
    "--allow-dirty", help: "tag even with uncommitted changes or an unrecorded release")

  // Signing.
  static let signingKey = Declare.repeated(
    "--signing-key", "file", kind: .path,
    help:
      "an Ed25519 private key (PKCS#8 PEM, as 'release keys generate' writes it) whose public half is in release.config.json's signing.trustedKeys; repeatable",
    default: "the PEM text of RELEASE_SIGNING_KEY")

  /// Checked with its release.config.json key, whose refusal names where it came from.
  static let manifestExpires = Declare.text(
    "--expires", "duration",
    help: "how long devices believe a signed over-the-air manifest after it is published, e.g. 36h or 7d",
    default: "7d", configuration: .manifestExpiry)
  static let refresh = Flag(
    "--refresh",
    help:
      "re-sign every signed channel's manifest as published at the destination with a new expiry, as its next revision"
  )

  // Root documents of the signed channel.
  static let rootKey = Declare.repeated(
    "--root-key", "file", kind: .path, help: "a root public key (.pub) of the new root; repeatable")
  static let rootThreshold = Declare.count(
    "--threshold", help: "how many root keys must sign the next root", default: "the previous root's")
  static let manifestKey = Declare.repeated(
    "--manifest-key", "file", kind: .path, help: "a manifest public key (.pub) of the new root; repeatable")
  static let manifestThreshold = Declare.count(
    "--manifest-threshold", help: "how many manifest keys must sign a manifest",
    default: "1, or the previous root's")
  static let rootSigningKey = signingKey.documented(
    help: "a root private key (PKCS#8 PEM) signing the new root; repeatable")

  // Keys and share links.
  static let keyName = Declare.text(
    "--name", "name", help: "file name of the pair, without .pem / .pub", default: "signing")
  static let identity = Declare.text(
    "--identity", "name", help: "the signer identity customers pass to 'ssh-keygen -Y verify -I'",
    default: KeysCommand.defaultIdentity)
  static let shareVersion = Declare.text(
    "--version", "version", help: "the release to share", default: "the customer's version in --state")
  static let expires = Declare.duration(
    "--expires",
    limit: .init(maximum: Double(S3Presigner.maximumExpiry), maximumText: "7d", examples: "36h or 7d"),
    help: "how long the links work, e.g. 36h or 7d; at most 7d", default: "7d")
  static let destination = Declare.text(
    "--destination", "dest",
    help: "s3://<bucket>[/<prefix>] or git:<location with {id}> the release was published to",
    default: "the first s3:// destination of release.config.json's publish.destinations, else its git: one")
  static let shareJSON = json.documented(
    help: "print {\"customer\", \"version\", \"expires\", \"urls\": {…}} on stdout")
  /// `ota verify`'s.
  static let verifyJSON = json.documented(
    help: "one JSON object per customer a line on stdout, instead of the summary lines")
  static let minRevision = Declare.integer(
    "--min-revision", 1...SignedOTAChannel.maximumRevision,
    help:
      "a problem when a pointer holds a lower revision (the newest a monitor has seen): catches a pointer moved back"
  )

  // Single commands'.
  static let noBuild = Flag("--no-build", help: "content checks only")
  static let percent = Declare.integer(
    "--percent", 0...100, help: "share of devices, 0 to 100",
    required: .init(reason: "the share of devices offered the model", shownValue: "0-100"))
  /// `release bump`'s: where the new CHANGELOG section's commits start.
  static let bumpSince = Declare.text(
    "--since", "ref", help: "list in CHANGELOG.md the commits after this commit, tag or branch",
    default: "tag v<version>, else the newest v* tag, else the commit adding the version's CHANGELOG section")

  // `ota evaluate`'s.
  static let outcomes = Declare.text(
    "--outcomes", "file|url",
    help:
      "the outcomes export (CSV: date,customer,flow,modelVersion,devices,conversions): a file, https://… or s3://<bucket>/<key>",
    required: .init(reason: "the outcomes export to judge from"))
  static let since = Declare.text(
    "--since", "date",
    help: "judge the rows from this UTC date (YYYY-MM-DD) on", default: "each offer's since in rollouts.json")
  static let evaluateJSON = json.documented(
    help: "one JSON object per judged challenger a line on stdout")
  static let report = Declare.path(
    "--report", "dir", help: "write an SVG chart and a Markdown table per judged challenger into dir")
  static let apply = Flag(
    "--apply",
    help: "carry the decisions out in rollouts.json: roll back a worse challenger, raise a good one a step")
  static let evaluatePublish = publish.documented(
    help:
      "after --apply, publish as 'release ota publish' does: dir:<path> | s3://<bucket>[/<prefix>]; repeatable"
  )
}

extension OptionGroup {
  static let inputs = OptionGroup(
    "INPUTS",
    [
      Options.manifest, Options.models, Options.maxModelSize, Options.templates, Options.state,
      Options.rollouts, Options.dist, Options.cache, Options.config,
    ], name: "inputs")
  static let s3 = OptionGroup("S3", [Options.s3Endpoint, Options.s3Region], name: "S3")
  static let behaviour = OptionGroup(
    "BEHAVIOUR",
    [
      Options.jobs, Options.dryRun, Options.force, Options.failFast, Options.shard, Options.skipTests,
      Options.fullBuild, Options.timeout, Options.json,
    ], name: "behaviour")
  static let publishing = OptionGroup(
    "PUBLISHING (after every customer succeeded and passed the content checks)",
    [
      Options.publish, Options.noPublish, Options.publishPassed, Options.adoptUnsignedIndex,
      Options.publicURL, Options.manifestExpires, Options.tag, Options.push, Options.remote,
      Options.allowDirty,
    ], name: "publishing")
  /// What the over-the-air commands read: the manifest, the store, the template, the state
  /// and rollouts.json.
  static let otaInputs = OptionGroup(
    "INPUTS",
    [
      Options.rollouts, Options.manifest, Options.models, Options.templates, Options.state, Options.cache,
      Options.config, Options.s3Endpoint, Options.s3Region,
    ], name: "OTA inputs")

  /// The private keys a run signs with.
  static let signing = OptionGroup("SIGNING", [Options.signingKey], name: "signing")

  /// The group without `removed` (a command that takes most of a group).
  func without(_ removed: any DeclaredOption...) -> OptionGroup {
    let removed = removed.map(\.option)
    return OptionGroup(
      title, options.filter { !removed.contains($0) }, name: name, excluded: excluded + removed)
  }

  /// The shared groups, as the README's table lists them.
  static let shared: [OptionGroup] = [.inputs, .s3, .behaviour, .publishing, .otaInputs, .signing]
}
