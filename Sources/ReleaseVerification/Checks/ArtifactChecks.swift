import Foundation
import ReleaseArchive
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleasePipeline
import ReleaseReporting
import ReleaseSigning
import ReleaseSystem

/// The content checks of a release in `dist/`, without building anything: the archive is
/// safe to extract, matches its release.json and .sha256 byte for byte, holds exactly the
/// files release.json lists, and its models are exactly the customer's — no file in it is
/// another model of the store (the foreign-model scan) — and its code is only that of the
/// customer's features (the feature leak scan). `release verify` runs them first;
/// `release all` runs them on every artifact before anything is published.
package struct ArtifactChecks {
  /// Every model of the store, not only this customer's.
  let store: StoreModels
  /// The template's features: which package files and module names are whose.
  let features: FeatureCatalog
  /// The customer's models as the manifest names them, when a manifest is at hand.
  let expectedModels: Set<ModelReference>?
  /// The customer's features as the manifest gives them, when a manifest is at hand.
  let expectedFeatures: [String]?
  /// The foreign-customer and privacy manifest scans (`PackageContentScans`).
  let scans: PackageContentScans

  /// Checks against `customer`'s manifest entry, or against nothing but the store and the
  /// template when the manifest has no such customer.
  package init(store: StoreModels, features: FeatureCatalog, customer: Customer?, scans: PackageContentScans)
  {
    self.scans = scans
    self.store = store
    self.features = features
    self.expectedModels = customer.map { Set($0.customModels.map(\.reference)) }
    self.expectedFeatures = customer.map { features.features(of: $0).map(\.name) }
  }

  /// Generated files that name the modules the package uses: a disabled feature's module name
  /// in them is a leak even without any of its files.
  static let filesNamingModules = [PackageGenerator.manifestFile, PackageGenerator.registryFile]

  /// What is wrong with the release, one line each; and whether its archive passed the safety
  /// checks, without which nothing else may open it (its names are not even fit to print).
  func check(releaseDirectory: URL, record: ReleaseRecord) -> (problems: [String], archiveIsSafe: Bool) {
    let name = record.artifact.file
    // release.json is input too: its file name must not lead out of the release directory.
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else {
      return (["release.json: artifact.file \"\(name)\" is not a plain file name"], false)
    }
    let archive = releaseDirectory.appendingPathComponent(name)
    let safety = ZipReader.safetyProblems(of: archive).map(\.description)
    guard safety.isEmpty else { return (safety, false) }
    let scanned = scans.problems(of: archive, name: name, top: record.artifact.topLevelDirectory)
    return (
      problems(of: archive, name: name, releaseDirectory: releaseDirectory, record: record) + scanned, true
    )
  }

  package func problems(releaseDirectory: URL, record: ReleaseRecord) -> [String] {
    check(releaseDirectory: releaseDirectory, record: record).problems
  }

  /// The content checks of a release of the run, then — when its archive is safe to open at
  /// all — the proof that it is what the job's inputs make (`ReproductionCheck`).
  func problems(of job: CustomerJob, record: ReleaseRecord, in directory: URL, inputs: ReleaseInputs)
    -> [String]
  {
    let (problems, safe) = check(releaseDirectory: directory, record: record)
    guard safe else { return problems }
    return problems + ReproductionCheck.problems(of: job, record: record, in: directory, inputs: inputs)
  }

  /// The checks of a safe archive.
  private func problems(of archive: URL, name: String, releaseDirectory: URL, record: ReleaseRecord)
    -> [String]
  {
    guard
      let digests = digestProblems(
        of: archive, name: name, releaseDirectory: releaseDirectory, record: record)
    else { return ["\(name): cannot be read"] }
    // The feature leak scan: the package holds nothing of a feature the customer does not have.
    let shippedFeatures = record.features ?? expectedFeatures ?? []
    let disabled = features.features.filter { !shippedFeatures.contains($0.name) }
    return digests + modelListProblems(of: record) + featureListProblems(of: record, shipped: shippedFeatures)
      + contentProblems(of: archive, name: name, record: record, disabled: disabled)
      + modelSetProblems(name: name, record: record)
  }

  /// The archive's SHA-256 and size against release.json and its `.sha256` file; nil when the
  /// archive cannot be read.
  private func digestProblems(of archive: URL, name: String, releaseDirectory: URL, record: ReleaseRecord)
    -> [String]?
  {
    guard let (sha256, size) = try? SHA256Digest.hexAndSize(ofFileAt: archive) else { return nil }
    var problems: [String] = []
    if sha256 != record.artifact.sha256 {
      problems.append("\(name): sha256 \(sha256), expected \(record.artifact.sha256) from release.json")
    }
    if size != record.artifact.size {
      problems.append("\(name): \(size) bytes, expected \(record.artifact.size) from release.json")
    }
    let checksumFile = releaseDirectory.appendingPathComponent(name + ".sha256")
    let line = (try? String(contentsOf: checksumFile, encoding: .utf8)) ?? ""
    if line != "\(sha256)  \(name)\n" {
      problems.append("\(name).sha256: does not match the archive (expected \"\(sha256)  \(name)\")")
    }
    return problems
  }

  /// Each model release.json names must be the store's model of that flow and version: the
  /// foreign-model scan trusts these hashes, so a release.json that calls another customer's
  /// model by this customer's name must not get past here. No file or model listed twice.
  private func modelListProblems(of record: ReleaseRecord) -> [String] {
    var problems: [String] = []
    for model in record.models {
      let reference = ModelReference(flowName: model.flowName, version: model.modelVersion)
      guard let storeHash = store.hashes[reference] else {
        problems.append("release.json: models lists \(reference), which is not in the model store")
        continue
      }
      if storeHash != model.sha256 {
        let actual = store.byHash[model.sha256].map { ", the store's \($0)" } ?? ""
        problems.append(
          "release.json: models lists \(reference) with sha256 \(model.sha256.prefix(12))…\(actual); the store's \(reference) is \(storeHash.prefix(12))…"
        )
      }
    }
    for duplicate in Self.duplicates(record.files.map(\.path)) {
      problems.append("release.json: files lists \(duplicate) more than once")
    }
    for duplicate in Self.duplicates(record.models.map(\.entry)) {
      problems.append("release.json: models lists \(duplicate) more than once")
    }
    return problems
  }

  /// The features release.json lists are the template's, and the manifest's when at hand.
  private func featureListProblems(of record: ReleaseRecord, shipped shippedFeatures: [String]) -> [String] {
    var problems: [String] = []
    for unknown in shippedFeatures where features.feature(named: unknown) == nil {
      problems.append(
        "release.json: features lists \(unknown.quotedForMessage), which is not a feature of \(features.displayPath)"
      )
    }
    if let expectedFeatures, let listed = record.features, listed != expectedFeatures {
      problems.append(
        "release.json: features are \(listed.joined(separator: ", ")); the manifest gives \(expectedFeatures.joined(separator: ", ")) for \(record.customer.id)"
      )
    }
    return problems
  }

  /// Every entry of the archive: under the top-level directory, listed in release.json with its
  /// digest, of no disabled feature, no foreign model; and every listed file in the archive.
  private func contentProblems(of archive: URL, name: String, record: ReleaseRecord, disabled: [Feature])
    -> [String]
  {
    let top = record.artifact.topLevelDirectory + "/"
    let listed = Dictionary(record.files.map { ($0.path, $0) }) { first, _ in first }
    let modelEntries = Dictionary(record.models.map { ($0.entry, $0) }) { first, _ in first }
    var problems: [String] = []
    var seen = Set<String>()
    do {
      try ZipReader.forEachFile(in: archive) { entry, data in
        let namesModules = Self.filesNamingModules.contains { entry.path == top + $0 }
        let (sha256, size, contents) = try Self.digest(of: data, keepingContents: namesModules)
        // Every file is scanned for foreign models, wherever it sits: an archive of another
        // customer's package (another top-level directory) must name the model it leaks.
        let foreign = store.byHash[sha256].flatMap { model in
          record.models.contains(where: { $0.sha256 == sha256 }) ? nil : model
        }
        guard entry.path.hasPrefix(top) else {
          problems.append("\(name): entry \(entry.path) is outside \(top)")
          if let foreign {
            problems.append("\(name): \(entry.path) is \(foreign), a model this customer does not ship")
          }
          return
        }
        let path = String(entry.path.dropFirst(top.count))
        seen.insert(path)
        problems += featureLeakProblems(
          name: name, path: path, contents: contents, record: record, disabled: disabled)
        problems += Self.listingProblems(
          name: name, path: path, sha256: sha256, size: size, listed: listed[path])
        if let foreign {
          problems.append("\(name): \(path) is \(foreign), a model this customer does not ship")
        }
        problems += Self.modelEntryProblems(
          name: name, path: path, sha256: sha256, model: modelEntries[path], customerID: record.customer.id)
      }
    } catch {
      problems.append("\(name): \(error)")
    }
    for missing in listed.keys.sorted() where !seen.contains(missing) {
      problems.append("\(name): \(missing) is listed in release.json but not in the archive")
    }
    return problems
  }

  /// An entry's SHA-256 and size, and its whole contents when `keep`: the files that name
  /// modules are read whole for the leak scan (the archive's size is already bounded by the
  /// safety checks); the data can be streamed only once.
  private static func digest(of data: ZipFileData, keepingContents keep: Bool) throws
    -> (sha256: String, size: Int64, contents: Data?)
  {
    guard keep else {
      let (sha256, size) = try data.sha256AndSize()
      return (sha256, size, nil)
    }
    var contents = Data()
    try data.forEachBlock { contents.append(contentsOf: $0) }
    return (SHA256Digest.hex(of: contents), Int64(contents.count), contents)
  }

  /// A file of a disabled feature, or a module name of one in a file that names modules.
  private func featureLeakProblems(
    name: String, path: String, contents: Data?, record: ReleaseRecord, disabled: [Feature]
  ) -> [String] {
    var problems: [String] = []
    if let owner = features.owner(of: path), disabled.contains(owner) {
      problems.append(
        "\(name): \(path) belongs to feature \(owner.name.quotedForMessage), which \(record.customer.id) does not have"
      )
    }
    if let contents {
      let text = String(decoding: contents, as: UTF8.self)
      for feature in disabled where text.contains(feature.module) {
        problems.append(
          "\(name): \(path) names \(feature.module), the module of feature \(feature.name.quotedForMessage), which \(record.customer.id) does not have"
        )
      }
    }
    return problems
  }

  /// The entry against its line in release.json's files.
  private static func listingProblems(
    name: String, path: String, sha256: String, size: Int64, listed: ReleaseRecord.File?
  ) -> [String] {
    guard let listed else { return ["\(name): \(path) is not listed in release.json"] }
    guard listed.sha256 != sha256 || listed.size != size else { return [] }
    return [
      "\(name): \(path) has sha256 \(sha256.prefix(12))…, expected \(listed.sha256.prefix(12))… from release.json"
    ]
  }

  /// A `.mlmodel` entry against its line in release.json's models.
  private static func modelEntryProblems(
    name: String, path: String, sha256: String, model: ReleaseRecord.Model?, customerID: String
  ) -> [String] {
    guard path.hasSuffix(".mlmodel") else { return [] }
    guard let model else {
      return ["\(name): \(path) is a model release.json does not list for \(customerID)"]
    }
    guard model.sha256 != sha256 else { return [] }
    return ["\(name): \(path) is not \(model.flowName) v\(model.modelVersion) (sha256 differs)"]
  }

  /// The models release.json lists against the ones the manifest names, when at hand.
  private func modelSetProblems(name: String, record: ReleaseRecord) -> [String] {
    guard let expectedModels else { return [] }
    let shipped = Set(record.models.map { ModelReference(flowName: $0.flowName, version: $0.modelVersion) })
    guard shipped != expectedModels else { return [] }
    let describe = { (set: Set<ModelReference>) in set.sorted().map(\.description).joined(separator: ", ") }
    return [
      "\(name): ships \(describe(shipped)); the manifest names \(describe(expectedModels)) for \(record.customer.id)"
    ]
  }

  /// What the release's signature (`<zip>.sig` beside the zip, made at publish time) says.
  package enum SignatureCheck: Equatable {
    /// No `.sig` beside the zip.
    case unsigned
    /// A `.sig` is there, and no key is trusted to check it with.
    case unchecked(file: String)
    /// Made by this trusted key for these bytes.
    case signed(file: String, key: PublicKey)
    /// Refused: one line, naming the file.
    case failed(String)
  }

  /// Checks `<zip>.sig` against `trusted` when it is there: the namespace, a trusted key and
  /// the zip's bytes as they are now.
  package static func signature(releaseDirectory: URL, archive name: String, trusted: [PublicKey])
    -> SignatureCheck
  {
    guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return .unsigned }
    let file = name + ReleaseSignature.suffix
    let url = releaseDirectory.appendingPathComponent(file)
    guard FileManager.default.fileExists(atPath: url.path) else { return .unsigned }
    guard !trusted.isEmpty else { return .unchecked(file: file) }
    let data: Data
    do {
      let handle = try RegularFile.handle(url)
      defer { try? handle.close() }
      // An armored Ed25519 SSHSIG is under 400 bytes.
      data = try handle.read(upToCount: 64 * 1024) ?? Data()
    } catch {
      return .failed("\(file): cannot be read (\(error))")
    }
    switch ReleaseSignature.verify(
      zipAt: releaseDirectory.appendingPathComponent(name), signature: data, trusted: trusted)
    {
    case .success(let key): return .signed(file: file, key: key)
    case .failure(let error): return .failed("\(file): \(error)")
    }
  }

  private static func duplicates(_ values: [String]) -> [String] {
    var seen = Set<String>()
    return values.filter { !seen.insert($0).inserted }.sorted()
  }
}

extension ArtifactChecks {
  /// The content checks of each job's release in its directory, against the job's manifest
  /// entry and inputs, in the order given: checked side by side on every core, since each
  /// release is read and its package generated again on its own.
  package static func problems(
    of releases: [(job: CustomerJob, directory: URL)], store: StoreModels, inputs: ReleaseInputs
  ) throws -> [[String]] {
    let results = Locked([Result<[String], any Error>?](repeating: nil, count: releases.count))
    let manifest = Manifest(path: inputs.manifest.path, customers: inputs.allCustomers)
    let templateWords = PackageContentScans.TemplateWords(inputs.template, manifest: manifest)
    DispatchQueue.concurrentPerform(iterations: releases.count) { index in
      let (job, directory) = releases[index]
      let result = Result<[String], any Error> {
        let record = try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
        let scans = PackageContentScans(customerID: job.id, manifest: manifest, templateWords: templateWords)
        let checks = ArtifactChecks(
          store: store, features: inputs.template.features, customer: job.customer, scans: scans)
        return checks.problems(of: job, record: record, in: directory, inputs: inputs)
      }
      results.withLock { $0[index] = result }
    }
    return try results.withLock { $0 }.map { try $0!.get() }
  }
}
