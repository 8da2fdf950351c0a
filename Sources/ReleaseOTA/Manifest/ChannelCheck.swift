import Foundation
import ReleaseSigning
import ReleaseSystem

/// Reads the objects of a published channel for `ChannelCheck`, without writing: a directory,
/// a bucket or a web server.
package protocol ChannelReader: Sendable {
  /// How messages name the object at `key`: `published/ota/<channel>/manifest.json`.
  func location(of key: String) -> String
  /// The object's bytes; nil when there is none. Throws when it cannot be read or holds more
  /// than `maximumSize` bytes.
  func read(_ key: String, maximumSize: Int64) throws -> Data?
  /// SHA-256 and size of the object's bytes, streamed; nil when there is none. Throws when
  /// it cannot be read or holds more than `maximumSize` bytes.
  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)?
}

/// A published signed channel checked from the outside, as a device would see it and more:
/// the pointer signed by a trusted key and not expired (a warning when it expires within
/// `warningInterval`), every revision file that is there signed too and holding the revision
/// its name says, the pointer at the highest revision, and every model the pointer names
/// present with its size and SHA-256. Every problem is one `Finding`; nothing stops at the
/// first one.
package struct ChannelCheck: Sendable {
  /// One problem or warning: the object it is about, and what was found against what was
  /// expected.
  package struct Finding: Equatable, Sendable, CustomStringConvertible {
    package var location: String
    package var message: String
    package var description: String { "\(location): \(message)" }
  }

  /// What was found in one customer's channel.
  package struct Report: Equatable, Sendable {
    package var customer: String
    package var channel: String
    package var problems: [Finding] = []
    package var warnings: [Finding] = []
    /// The pointer's revision and expiry, when it verified.
    package var revision: Int?
    package var expires: String?
    /// Revision files read and verified.
    package var revisionFiles = 0
    /// Distinct model objects checked.
    package var models = 0

    /// One line: `acme: ok, revision 7 (7 revision files), expires … (in 6 days), 3 models`.
    package func summary(now: Date) -> String {
      var facts: [String] = []
      if let revision {
        facts.append(
          "revision \(revision) (\(revisionFiles) revision file\(revisionFiles == 1 ? "" : "s") verified)")
      }
      if let expires, let date = SignedOTAChannel.date(expires) {
        let left = date.timeIntervalSince(now)
        facts.append(
          "expires \(expires) (" + (left > 0 ? "in \(ChannelCheck.duration(left))" : "expired") + ")")
      }
      if revision != nil { facts.append("\(models) model\(models == 1 ? "" : "s") checked") }
      let verdict =
        problems.isEmpty ? "ok" : "\(problems.count) problem\(problems.count == 1 ? "" : "s")"
      return "\(customer): \(verdict)" + (facts.isEmpty ? "" : ", " + facts.joined(separator: ", "))
    }
  }

  /// As a device: a manifest over 1 MiB is cut off.
  package static let maximumManifestSize: Int64 = 1 << 20
  /// As a device: a model over 256 MiB is never downloaded.
  package static let maximumModelSize: Int64 = 256 << 20
  /// How close to its expiry a pointer is warned about.
  package static let warningInterval: TimeInterval = 2 * 24 * 3600
  /// How many numbers above the pointer's revision are looked at for newer files: publishes
  /// that died leave a number unused, never more than a few in a row.
  static let probeGap = 3
  /// How many revision files up to the pointer's are read, newest first.
  package static let revisionWindow = 64

  let reader: ChannelReader
  let trusted: [PublicKey]
  package let now: Date
  /// `--min-revision`: a pointer below it is a problem (one moved back to an older revision,
  /// which still verifies).
  let minimumRevision: Int?
  /// The committed root documents (`signing.root`), checked as published; nil without.
  package var chain: RootChain?

  package init(reader: ChannelReader, trusted: [PublicKey], now: Date, minimumRevision: Int? = nil) {
    self.reader = reader
    self.trusted = trusted
    self.now = now
    self.minimumRevision = minimumRevision
  }

  package func check(customer: String, channel: String) -> Report {
    var report = Report(customer: customer, channel: channel)
    if let chain { checkRoots(chain, channel: channel, into: &report) }
    let pointerKey = SignedOTAChannel.pointerKey(channel: channel)
    let pointerLocation = reader.location(of: pointerKey)
    guard
      let pointer = open(pointerKey, customer: customer, into: &report, missing: "the pointer devices poll")
    else { return report }
    report.revision = pointer.revision
    report.expires = pointer.expires
    if let minimumRevision, pointer.revision < minimumRevision {
      report.problems.append(
        Finding(
          location: pointerLocation,
          message:
            "holds revision \(pointer.revision), below --min-revision \(minimumRevision); expected \(minimumRevision) or above: an older manifest served again"
        ))
    }
    checkExpiry(pointer, location: pointerLocation, into: &report)
    checkRevisions(pointer, channel: channel, customer: customer, into: &report)
    checkModels(pointer, location: pointerLocation, into: &report)
    return report
  }

  // MARK: The pointer

  private func checkExpiry(_ pointer: OTAManifest, location: String, into report: inout Report) {
    guard let text = pointer.expires, let expires = SignedOTAChannel.date(text) else { return }
    let left = expires.timeIntervalSince(now)
    let nowText = SignedOTAChannel.timestamp(now)
    if left <= 0 {
      report.problems.append(
        Finding(
          location: location,
          message:
            "expired: expires \(text), \(Self.duration(-left)) before now (\(nowText)); expected a date after now: devices refuse it and download nothing until it is re-signed"
        ))
    } else if left < Self.warningInterval {
      report.warnings.append(
        Finding(
          location: location,
          message:
            "expires \(text), in \(Self.duration(left)) (less than \(Self.duration(Self.warningInterval))); re-sign it before then or devices stop following the channel"
        ))
    }
  }

  // MARK: Revisions

  /// The newest `revisionWindow` revision files up to the pointer's, newest first, where
  /// present, then the numbers above it: each one verifies and holds the revision its name
  /// says, and none is above the pointer's.
  private func checkRevisions(
    _ pointer: OTAManifest, channel: String, customer: String, into report: inout Report
  ) {
    let pointerLocation = reader.location(of: SignedOTAChannel.pointerKey(channel: channel))
    var highest: Int?
    func revisionFile(_ number: Int) -> RevisionFile {
      self.revisionFile(number, channel: channel, customer: customer, highest: &highest, into: &report)
    }

    // The newest files first, at most `revisionWindow` of them: a pointer at any revision is
    // checked in the same bounded time (`open` has refused one outside 1...maximumRevision).
    let oldest = max(1, pointer.revision - (Self.revisionWindow - 1))
    if pointer.revision >= oldest {
      for number in (oldest...pointer.revision).reversed() {
        switch revisionFile(number) {
        case .missing where number == pointer.revision:
          report.problems.append(
            Finding(
              location: reader.location(
                of: SignedOTAChannel.revisionKey(channel: channel, revision: number)),
              message:
                "missing; expected the file of revision \(number), the pointer's (every revision is kept)"))
        case .good(let manifest) where number == pointer.revision && manifest != pointer:
          report.problems.append(
            Finding(
              location: pointerLocation,
              message:
                "differs from \(SignedOTAChannel.revisionKey(channel: channel, revision: number)) at the same revision \(number); expected the same manifest"
            ))
        default: break
        }
      }
    }
    var number = pointer.revision + 1
    var missingInARow = 0
    while missingInARow < Self.probeGap, number <= SignedOTAChannel.maximumRevision {
      if case .missing = revisionFile(number) { missingInARow += 1 } else { missingInARow = 0 }
      number += 1
    }
    if let highest, highest > pointer.revision {
      report.problems.append(
        Finding(
          location: pointerLocation,
          message:
            "holds revision \(pointer.revision), below the highest revision file (manifest-\(highest).json); expected \(highest): an older manifest replayed as the pointer, or a publish that did not finish"
        ))
    }
  }

  /// What is at `manifest-<number>.json`: nothing, a file with a problem (reported), or a
  /// good one.
  private enum RevisionFile {
    case missing
    case bad
    case good(OTAManifest)
  }

  /// Reads and checks the revision file `number`; a good one counts, and raises `highest`.
  private func revisionFile(
    _ number: Int, channel: String, customer: String, highest: inout Int?, into report: inout Report
  ) -> RevisionFile {
    let key = SignedOTAChannel.revisionKey(channel: channel, revision: number)
    let location = reader.location(of: key)
    let data: Data
    do {
      guard let read = try reader.read(key, maximumSize: Self.maximumManifestSize) else { return .missing }
      data = read
    } catch {
      report.problems.append(Finding(location: location, message: "cannot be read: \(Self.reason(error))"))
      return .bad
    }
    // Signed only by a key a rotation retired: devices no longer believe it; not counted.
    if isSignedOnlyByRetiredKeys(data) { return .missing }
    guard let manifest = opened(data, location: location, customer: customer, into: &report) else {
      return .bad
    }
    guard manifest.revision == number else {
      report.problems.append(
        Finding(
          location: location,
          message:
            "holds revision \(manifest.revision), expected \(number) as its name says: a revision file replaced by another"
        ))
      return .bad
    }
    report.revisionFiles += 1
    highest = max(highest ?? number, number)
    return .good(manifest)
  }

  // MARK: Models

  private func checkModels(
    _ pointer: OTAManifest, location pointerLocation: String, into report: inout Report
  ) {
    var checked = Set<String>()
    for (flowName, flow) in pointer.flows.sorted(by: { $0.key < $1.key }) {
      for (index, model) in flow.models.enumerated() {
        let field = "flows.\(flowName).models[\(index)]"
        let name = "\(flowName) v\(model.modelVersion)"
        guard SignedOTAChannel.isDigest(model.sha256) else {
          report.problems.append(
            Finding(
              location: pointerLocation,
              message:
                "\(field).sha256: found \"\(model.sha256.prefix(80))\", expected 64 lower-case hex digits"))
          continue
        }
        let key = OTAManifest.modelKey(sha256: model.sha256)
        if !model.url.hasSuffix("/" + key) {
          report.problems.append(
            Finding(
              location: pointerLocation,
              message: "\(field).url: found \"\(model.url.prefix(200))\", expected a URL ending in /\(key)"))
        }
        guard checked.insert(model.sha256).inserted else { continue }
        report.models += 1
        let location = reader.location(of: key)
        let expected = "expected \(name): \(model.size) bytes with sha256 \(model.sha256)"
        guard model.size >= 0, model.size <= Self.maximumModelSize else {
          report.problems.append(
            Finding(
              location: pointerLocation,
              message:
                "\(field).size: found \(model.size), expected 0 to \(Self.maximumModelSize) bytes (devices never download more)"
            ))
          continue
        }
        do {
          guard let found = try reader.digest(of: key, maximumSize: model.size) else {
            report.problems.append(Finding(location: location, message: "missing; \(expected)"))
            continue
          }
          if found.sha256 != model.sha256 || found.size != model.size {
            report.problems.append(
              Finding(
                location: location,
                message: "holds \(found.size) bytes with sha256 \(found.sha256); \(expected)"))
          }
        } catch SystemError.tooLarge {
          report.problems.append(
            Finding(location: location, message: "holds more than \(model.size) bytes; \(expected)"))
        } catch {
          report.problems.append(
            Finding(location: location, message: "cannot be read: \(Self.reason(error))"))
        }
      }
    }
  }

  // MARK: Reading envelopes

  /// The verified manifest at `key`, or nil with its problem reported (`missing` says what
  /// the object is, for a missing one).
  private func open(_ key: String, customer: String, into report: inout Report, missing: String)
    -> OTAManifest?
  {
    let location = reader.location(of: key)
    let data: Data
    do {
      guard let read = try reader.read(key, maximumSize: Self.maximumManifestSize) else {
        report.problems.append(
          Finding(location: location, message: "missing; expected \(missing), a signed manifest envelope"))
        return nil
      }
      data = read
    } catch {
      report.problems.append(Finding(location: location, message: "cannot be read: \(Self.reason(error))"))
      return nil
    }
    return opened(data, location: location, customer: customer, into: &report)
  }

  private func opened(_ data: Data, location: String, customer: String, into report: inout Report)
    -> OTAManifest?
  {
    do {
      return try SignedOTAChannel.open(data, trusted: trusted, customer: customer, location: location)
        .manifest
    } catch OTAPublishError.unverifiedManifest(_, let reason) {
      report.problems.append(
        Finding(location: location, message: "\(reason); expected \(expectedSignature)"))
    } catch OTAPublishError.unreadablePointer(_, let reason) {
      report.problems.append(
        Finding(
          location: location,
          message: "signed, but not a manifest devices of \"\(customer)\" accept: \(reason)"))
    } catch let error as OTAPublishError {
      report.problems.append(Finding(location: location, message: error.message))
    } catch {
      report.problems.append(Finding(location: location, message: Self.reason(error)))
    }
    return nil
  }

  /// What a good envelope has: `payloadType`, and a signature by one of the trusted keys.
  private var expectedSignature: String {
    let ids = trusted.map { String($0.keyID.prefix(16)) }
    return
      "an envelope of type \(SignedOTAChannel.payloadType) signed by a trusted key (key id \(ids.joined(separator: ", ")))"
  }

  // MARK: Helpers

  /// `2 days 3 hours`, `5 hours 10 minutes`, `40 seconds`: the two largest units.
  package static func duration(_ seconds: TimeInterval) -> String {
    let total = Int(seconds.rounded(.down))
    let units = [("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)]
    var parts: [String] = []
    var rest = total
    for (name, size) in units where rest >= size || (parts.isEmpty && size == 1) {
      let count = rest / size
      rest -= count * size
      if count > 0 || parts.isEmpty { parts.append("\(count) \(name)\(count == 1 ? "" : "s")") }
      if parts.count == 2 { break }
    }
    return parts.joined(separator: " ")
  }

  /// An error on one line.
  static func reason(_ error: Error) -> String {
    "\(error)".split(whereSeparator: \.isNewline).joined(separator: " ")
  }
}
