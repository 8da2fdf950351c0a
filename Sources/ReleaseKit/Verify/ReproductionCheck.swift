import Foundation
import ReleaseArchive
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// Whether a release is what its inputs make: the archive holds exactly the files the
/// template makes for the customer, byte for byte, and release.json names the customer,
/// version and package it is released as.
///
/// A release in dist/ may come from a CI cache, a shard's machine or an earlier run; its
/// release.json and .sha256 prove only that they agree with the zip, not that the zip is this
/// customer's package. Generating the package again is cheap and deterministic (no build; only
/// the expected bytes, in memory), so every release is held to it before it is published,
/// tagged or built by `release verify`. Zip metadata (entry order, times, permissions) is the
/// archive writer's and is not compared: only what the customer's build reads is.
enum ReproductionCheck {
  /// The record's identity against the job it is released as.
  static func recordProblems(_ record: ReleaseRecord, customer: Customer, version: String) -> [String] {
    var problems: [String] = []
    func check(_ field: String, _ found: String, _ expected: String) {
      if found != expected { problems.append("release.json: \(field) is \(found), expected \(expected)") }
    }
    check("customer.id", record.customer.id, customer.id)
    check("customer.appID", record.customer.appID.lowercased(), customer.appID.lowercased())
    check("version", record.version, version)
    check("packageName", record.packageName, customer.packageName)
    check("artifact.topLevelDirectory", record.artifact.topLevelDirectory, customer.packageName)
    return problems
  }

  /// Every difference between the archive's files and the package `expected` describes, one
  /// line each naming the file; empty when the archive is exactly that package.
  static func archiveProblems(
    _ archive: URL, topLevelDirectory: String, expected: [String: PackageGenerator.PackageFile]
  )
    -> [String]
  {
    let name = archive.lastPathComponent
    let top = topLevelDirectory + "/"
    var problems: [String] = []
    var seen = Set<String>()
    do {
      try ZipReader.forEachFile(in: archive) { entry, data in
        guard entry.path.hasPrefix(top) else {
          problems.append(
            "\(name): \(entry.path) is outside \(top), not part of the package the template makes")
          return
        }
        let path = String(entry.path.dropFirst(top.count))
        seen.insert(path)
        guard let file = expected[path] else {
          problems.append("\(name): \(path) is not part of the package the template makes")
          return
        }
        let (sha256, _) = try data.sha256AndSize()
        let wanted: String
        switch file {
        case .contents(let bytes): wanted = SHA256Digest.hex(of: bytes)
        case .model(let model): wanted = model.sha256
        }
        if sha256 != wanted {
          problems.append(
            "\(name): \(path) differs from what the template makes (sha256 \(sha256.prefix(12))…, expected \(wanted.prefix(12))…)"
          )
        }
      }
    } catch {
      problems.append("\(name): \(error)")
    }
    for path in expected.keys.sorted() where !seen.contains(path) {
      problems.append("\(name): \(path) is missing; the template makes it")
    }
    return problems
  }

  /// The whole check for a release of the run: the record's identity, then the archive's files.
  static func problems(
    of job: CustomerJob, record: ReleaseRecord, in releaseDirectory: URL, inputs: ReleaseInputs
  ) -> [String] {
    var problems = recordProblems(record, customer: job.customer, version: job.version.description)
    do {
      let expected = try PackageGenerator.files(
        GenerateStep.input(for: job, inputs: inputs), templateDirectory: inputs.templateDirectory)
      problems += archiveProblems(
        releaseDirectory.appendingPathComponent(job.archiveName), topLevelDirectory: job.customer.packageName,
        expected: expected)
    } catch {
      problems.append("cannot generate the package to compare with: \(error)")
    }
    return problems
  }

  /// Said once after the problems: how to get past a release that is not what its inputs make.
  static let recovery =
    "a release in dist/ that is not exactly what the inputs make is never published or tagged; --force rebuilds it from the inputs"
}
