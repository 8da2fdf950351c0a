import Foundation
import ReleaseArchive
import ReleaseGeneration
import ReleaseManifest
import ReleasePipeline
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
package enum ReproductionCheck {
  /// The record's identity against the job it is released as.
  package static func recordProblems(_ record: ReleaseRecord, customer: Customer, version: String) -> [String]
  {
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
  package static func archiveProblems(
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

  /// The whole check for a release of the run: every field of its record, then the archive's
  /// files.
  static func problems(
    of job: CustomerJob, record: ReleaseRecord, in releaseDirectory: URL, inputs: ReleaseInputs
  ) -> [String] {
    let expected: [String: PackageGenerator.PackageFile]
    do {
      expected = try PackageGenerator.files(inputs.generationInput(for: job), template: inputs.template)
    } catch {
      return recordProblems(record, customer: job.customer, version: job.version.description) + [
        "cannot generate the package to compare with: \(error)"
      ]
    }
    // What is published (the customer's name, SDK version, models and their inputs…) comes
    // from release.json: all of it must be what this run would write for the job, not only
    // its identity. Taken from the record, since the build made them and other checks prove
    // them: the archive's size and SHA-256 (they match the zip and its .sha256; the zip's
    // contents are compared below, its container bytes depend on the libarchive and zlib
    // build, which no digest covers) and the test count (how many tests `swift test` ran, nil
    // under --skip-tests: only running them again could prove it; shown in report.xml, never
    // published). The files list is computed from the package the template makes. The
    // toolchain is part of the build digest, so it is fixed for the plan and compared.
    let wanted = ReleaseRecord(
      job, archiveSHA256: record.artifact.sha256, archiveSize: record.artifact.size,
      files: files(of: expected), testCount: record.testCount, inputs: inputs)
    return differences(record, wanted)
      + archiveProblems(
        releaseDirectory.appendingPathComponent(job.archiveName), topLevelDirectory: job.customer.packageName,
        expected: expected)
  }

  /// The files list release.json has for a package of these files.
  static func files(of package: [String: PackageGenerator.PackageFile]) -> [ReleaseRecord.File] {
    package.map { path, file in
      switch file {
      case .contents(let bytes):
        return ReleaseRecord.File(path: path, sha256: SHA256Digest.hex(of: bytes), size: Int64(bytes.count))
      case .model(let model):
        return ReleaseRecord.File(path: path, sha256: model.sha256, size: model.size)
      }
    }.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
  }

  /// Every field of `record` that differs from `wanted`, by its JSON path (`customer.name`,
  /// `models[0].inputNames`), one line each. App ids compare case-insensitively, as everywhere.
  static func differences(_ record: ReleaseRecord, _ wanted: ReleaseRecord) -> [String] {
    var found = record
    var expected = wanted
    found.customer.appID = found.customer.appID.lowercased()
    expected.customer.appID = expected.customer.appID.lowercased()
    // Records written before `pinnedKeys` was recorded have none (they count as unpinned).
    if found.pinnedKeys == nil { expected.pinnedKeys = nil }
    guard found != expected else { return [] }
    func json(_ value: ReleaseRecord) -> Any? {
      (try? value.encoded()).flatMap { try? JSONSerialization.jsonObject(with: $0) }
    }
    var problems: [String] = []
    compare(json(found), json(expected), at: "", into: &problems)
    // Equal as JSON but not as values cannot happen for a Codable record; say so rather than pass.
    return problems.isEmpty ? ["release.json: differs from what this run makes for the release"] : problems
  }

  /// Walks objects and arrays of objects; anything else (strings, numbers, lists of names) is
  /// compared whole.
  private static func compare(_ found: Any?, _ expected: Any?, at path: String, into problems: inout [String])
  {
    if let found = found as? [String: Any], let expected = expected as? [String: Any] {
      for key in Set(found.keys).union(expected.keys).sorted() {
        compare(found[key], expected[key], at: path.isEmpty ? key : "\(path).\(key)", into: &problems)
      }
      return
    }
    if let found = found as? [[String: Any]], let expected = expected as? [[String: Any]],
      found.count == expected.count
    {
      for index in found.indices {
        compare(found[index], expected[index], at: "\(path)[\(index)]", into: &problems)
      }
      return
    }
    let shownFound = shown(found)
    let shownExpected = shown(expected)
    if shownFound != shownExpected {
      problems.append("release.json: \(path) is \(shownFound), expected \(shownExpected)")
    }
  }

  /// A JSON value as compact JSON, at most 120 characters; `absent` for a missing one.
  private static func shown(_ value: Any?) -> String {
    guard let value else { return "absent" }
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys, .withoutEscapingSlashes])
    else { return "\(value)" }
    let text = String(decoding: data, as: UTF8.self)
    return text.count > 120 ? text.prefix(119) + "…" : text
  }

  /// Said once after the problems: how to get past a release that is not what its inputs make.
  package static let recovery =
    "a release in dist/ that is not exactly what the inputs make is never published or tagged; --force rebuilds it from the inputs"
}
