import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseOTA
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem

// `release ota verify` as a chain of steps (`ChannelVerifyCommand.pipeline`).

/// The channels a run checks, where it reads them, and how.
struct ChannelsToCheck {
  var channels: [(customer: String, channel: String)]
  /// Its `now` is the instant every check and summary of the run is made at.
  var check: ChannelCheck
}

/// The channels to check from the state file (`--state`'s "channels"), the reader of where
/// they are published, and the check they are held to: the trusted keys and root, one instant
/// for every check and summary of the run, `--min-revision`.
struct FindChannelsStep: RequiredStep {
  let name = "find channels"

  func run(_ options: ChannelVerifyOptions, _ context: ReleaseContext) throws -> ChannelsToCheck {
    let services = context.services
    let state = try ReleaseState.load(
      from: services.resolve(options.statePath), displayPath: options.statePath)
    let channels = try Self.channels(options.customers, state: state, statePath: options.statePath)
    var check = ChannelCheck(
      reader: try options.reader(services), trusted: options.trusted.keys, now: services.clock.now(),
      minimumRevision: options.minimumRevision)
    check.chain = options.trusted.chain
    return ChannelsToCheck(channels: channels, check: check)
  }

  /// The channels to check, by customer: the named ones (each must have a channel), else
  /// every customer with one. Sorted by customer when none are named.
  static func channels(_ customers: [String], state: ReleaseState, statePath: String) throws
    -> [(customer: String, channel: String)]
  {
    let named = customers.isEmpty ? state.channels.keys.sorted() : customers
    guard !named.isEmpty else {
      throw ReleaseError.invalidInput(
        "ota verify: \(statePath) has no channels (found no \"channels\"); expected the customers' channel ids, which the first signed publish makes"
      )
    }
    var seen = Set<String>()
    var channels: [(customer: String, channel: String)] = []
    for customer in named where seen.insert(customer).inserted {
      guard let channel = state.channels[customer] else {
        let known = state.channels.keys.sorted()
        throw ReleaseError.usage(
          "ota verify \(customer.prefix(60)): no channel in \(statePath) (found channels of "
            + (known.isEmpty ? "no customer" : known.prefix(10).joined(separator: ", "))
            + "); expected a customer with a channel")
      }
      guard SignedOTAChannel.isChannelID(channel) else {
        throw ReleaseError.invalidInput(
          "\(statePath): channels.\(customer): found \"\(channel.prefix(60))\", expected 32 lower-case hex digits"
        )
      }
      channels.append((customer, channel))
    }
    return channels
  }
}

/// Each channel checked from the outside, in order (`ChannelCheck`).
struct CheckChannelsStep: RequiredStep {
  let name = "check channels"

  func run(_ input: ChannelsToCheck, _ context: ReleaseContext) throws -> ChannelReports {
    ChannelReports(
      reports: input.channels.map { input.check.check(customer: $0.customer, channel: $0.channel) },
      now: input.check.now)
  }
}

/// What the checks found, and when they looked.
struct ChannelReports {
  var reports: [ChannelCheck.Report]
  var now: Date
}

/// Per customer, its warnings and problems (one line each, on standard error) and its summary
/// line, or with `--json` its object; then exit 1 naming the channels with a problem.
struct ReportChannelsStep: RequiredStep {
  let name = "report"
  let json: Bool

  func run(_ input: ChannelReports, _ context: ReleaseContext) throws {
    let output = context.services.output
    for report in input.reports {
      output.write(lines: report.warnings.map { "warning: \($0)" }, to: .standardError)
      output.write(lines: report.problems.map(\.description), to: .standardError)
      output.write(line: json ? Self.jsonLine(report) : report.summary(now: input.now), to: .standardOutput)
    }
    let failed = input.reports.filter { !$0.problems.isEmpty }
    guard failed.isEmpty else {
      let problems = failed.map(\.problems.count).reduce(0, +)
      let channels = input.reports.count
      throw ReleaseError.stepFailed(
        step: "ota verify",
        reason:
          "\(problems) problem\(problems == 1 ? "" : "s") in \(failed.count) of \(channels) channel\(channels == 1 ? "" : "s") (\(failed.map(\.customer).joined(separator: ", ")))"
      )
    }
  }

  /// `--json`: one object per customer a line.
  static func jsonLine(_ report: ChannelCheck.Report) -> String {
    struct Line: Encodable {
      var customer: String
      var channel: String
      var ok: Bool
      var revision: Int?
      var expires: String?
      var revisionFiles: Int
      var models: Int
      var problems: [String]
      var warnings: [String]
    }
    let line = Line(
      customer: report.customer, channel: report.channel, ok: report.problems.isEmpty,
      revision: report.revision,
      expires: report.expires, revisionFiles: report.revisionFiles, models: report.models,
      problems: report.problems.map(\.description), warnings: report.warnings.map(\.description))
    return String(decoding: StableJSON.canonical(line), as: UTF8.self)
  }
}
