import Foundation
import ReleaseCore
import ReleaseFlow
import ReleaseJSON
import ReleaseManifest
import ReleaseNetwork
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem

/// `release share <id>`: its table entry and its run.
enum ShareCommand {
  static let command = Command(
    name: "share", synopsis: "share <id>", summary: "print links a customer downloads one release with",
    title: "print the links a customer downloads one of its releases with",
    usage: [
      "share <id> [--version <v>] [--expires <duration>] [--destination <s3://…|git:…>] [--json] [options]"
    ],
    discussion: """
      For an S3 destination: presigned GET URLs of the customer's zip, its signature (<zip>.sig) \
      and its index (customers/<id>/index.json), valid for --expires (at most 7 days, S3's \
      limit). Anyone holding a link can read that one object until it expires; signed with \
      temporary credentials (AWS_SESSION_TOKEN), the links stop working when those do. The \
      objects must be published (a HEAD of each): a customer or version that was not is refused. \
      For a git: releases repository: the repository's URL and the version's tag (access is the \
      git host's). A directory destination cannot be shared. Nothing is uploaded. --json prints \
      {"customer", "version", "expires", "urls": {"zip", "signature", "index"}} (for git: \
      {"customer", "version", "repository", "tag"}).
      """,
    positionals: [Positional(label: "<id>", help: "the customer's 'id' slug, e.g. acme")],
    arity: .exactly(1, expected: "one customer id"),
    groups: [
      OptionGroup(
        "OPTIONS",
        [
          Options.shareVersion, Options.expires, Options.destination, Options.shareJSON, Options.state,
          Options.config,
        ]),
      .s3,
    ],
    footer: "Exit status: 0 links printed, 1 the destination could not be read, 2 bad arguments or input.",
    run: { try run(try ShareOptions($0, $1), $1) })

  /// Its steps (`ShareRun.pipeline`, in `ReleaseFlow`) on the request its options make.
  static func run(_ options: ShareOptions, _ invocation: CommandInvocation) throws {
    let request = ShareRun.Request(
      customer: options.customer, version: options.version, expiresSeconds: options.expiresSeconds,
      destination: options.destination, json: options.json)
    try ShareRun.pipeline(request, invocation.quietPipeline())
  }
}

/// `release share`'s options.
struct ShareOptions {
  /// The customer's id slug.
  var customer: String
  var version: SemanticVersion
  var expiresSeconds: Int
  /// An S3 destination or a releases repository (a directory is refused while parsing).
  var destination: PublishDestination
  var json: Bool

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The command's arity lets exactly one through.
    customer = parsed.positionals[0]
    guard Self.isCustomerID(customer) else {
      throw ReleaseError.usage(
        "share: \"\(customer.prefix(60))\" is not a customer id; expected its 'id' slug from customers.json, e.g. acme"
      )
    }
    let maximum = S3Presigner.maximumExpiry
    expiresSeconds = Int(
      try parsed.duration(Options.expires, maximum: Double(maximum), maximumText: "7d", examples: "36h or 7d")
        ?? Double(maximum))
    json = parsed[Options.shareJSON]
    let services = invocation.services
    destination = try SettingsResolution(parsed, invocation).shareDestination(parsed[Options.destination])
    if case .directory = destination {
      throw ReleaseError.usage(ShareRun.directoryRefusal(destination.description))
    }
    if let text = parsed[Options.shareVersion] {
      guard let version = SemanticVersion(text) else {
        throw ReleaseError.usage("--version \(text.prefix(40)): expected a version such as 2.4.1")
      }
      self.version = version
    } else {
      let statePath = parsed[Options.state] ?? InputSettings().statePath
      let state = try ReleaseState.load(from: services.resolve(statePath), displayPath: statePath)
      guard let entry = state.customers[customer] else {
        let hint =
          Suggestion.closest(to: customer, among: state.customers.keys.sorted()).map {
            " (did you mean \"\($0)\"?)"
          }
          ?? ""
        throw ReleaseError.invalidInput(
          "share: \(customer) has no release recorded in \(statePath)\(hint); give --version, or publish it first"
        )
      }
      version = entry.version
    }
  }

  /// A customer's id as customers.json allows it: it names objects and paths, so nothing else.
  static func isCustomerID(_ text: String) -> Bool {
    (1...64).contains(text.count) && !text.hasPrefix("-") && !text.hasPrefix(".")
      && text.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || "-_.".unicodeScalars
            .contains($0)
      }
  }
}
