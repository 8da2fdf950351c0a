import Foundation
import ReleaseJSON
import ReleaseManifest
import ReleaseSystem

/// Generates one customer's SDK package from the template (`templates/ContextSDK`): the files
/// of the core and of the customer's features only (`features.json`); of those, files ending in
/// `.tmpl` are rendered (and lose the suffix), every other file is copied as it is, and the
/// customer's models are copied into the `ContextSDK` target's resources. The same input
/// always produces the same bytes.
public enum PackageGenerator {
  /// The `ContextSDK` target's resources, relative to the package root: the customer's
  /// models and configuration.
  public static let resourcesDirectory = "Sources/ContextSDK/Resources"
  /// Where the customer's models go, relative to the package root.
  public static let modelsDirectory = resourcesDirectory + "/Models"
  /// The template file holding `public let contextSDKVersion = "<version>"`.
  public static let sdkVersionFile = "Sources/ContextSDKCore/SDKVersion.swift"

  /// Entries of an existing package directory that generation leaves alone: the build
  /// directory, so a build warmed by another customer's package can be reused.
  static let preservedEntries: Set<String> = [".build"]

  /// Template files that are the tool's input, not part of any package: `signals.json` (the
  /// signals the SDK computes, which every model is checked against) and `features.json` (the
  /// parts of the SDK customers license).
  public static let toolInputFiles: Set<String> = ["signals.json", FeatureCatalog.fileName]

  /// The package's release notes, made by the tool (not a template): every release of this
  /// customer's package, newest first.
  public static let changelogFile = "CHANGELOG.md"

  /// The generated files that name the package's modules: its manifest and the registry that
  /// re-exports the customer's features.
  public static let manifestFile = "Package.swift"
  public static let registryFile = "Sources/ContextSDK/CustomerRegistry.swift"
  /// The customer's configuration (`CustomerFile`), a resource of the `ContextSDK` target.
  public static let customerFile = resourcesDirectory + "/customer.json"
  static let packageManifestTemplate = manifestFile + ".tmpl"
  static let registryTemplate = registryFile + ".tmpl"
  static let readmeTemplate = "README.md.tmpl"
  static let signalsTemplate = "Sources/ContextSDK/SDKSignals.swift.tmpl"

  /// Writes the package into `packageDirectory`, which may be absent, empty, or an earlier
  /// generated package (with its `.build`). Files whose bytes do not change are not rewritten,
  /// so their timestamps stay and an incremental build skips them; files a previous
  /// generation wrote that are no longer part of the package (another customer's models) are
  /// deleted. Anything else in the directory is an error rather than something to delete.
  public static func generate(
    _ input: GenerationInput, template: PackageTemplate, into packageDirectory: URL
  ) throws -> GeneratedPackage {
    let outputs = try files(input, template: template)
    try prepare(packageDirectory, for: Set(outputs.keys))
    let files = outputs.keys.sorted()
    for (index, relativePath) in files.enumerated() {
      try write(outputs[relativePath]!, to: packageDirectory.appendingPathComponent(relativePath))
      if index == files.count / 2 { FaultPoint.reach("generate.partial") }
    }
    return GeneratedPackage(directory: packageDirectory, files: files)
  }

  /// Every file of the package `input` makes, by path relative to the package root, without
  /// writing anything: what `generate` writes, and what an archive must hold to be this
  /// customer's package (the check that a restored dist/ is only a cache). The template is read
  /// once per run, so every customer's package is generated and checked from the same bytes.
  public static func files(_ input: GenerationInput, template: PackageTemplate) throws -> [String:
    PackageFile]
  {
    let features = template.features.features(of: input.customer)
    try validate(input, features: features, catalog: template.features)
    try template.checkSDKVersion(expected: input.sdkVersion)
    let templateDirectory = template.directory

    var outputs: [String: PackageFile] = [:]
    func plan(_ relativePath: String, _ file: PackageFile) throws {
      guard outputs[relativePath] == nil else {
        throw GenerationError.duplicateOutput(file: relativePath)
      }
      outputs[relativePath] = file
    }
    for (relativePath, bytes) in template.files(for: features) where !toolInputFiles.contains(relativePath) {
      let source = templateDirectory.appendingPathComponent(relativePath)
      if relativePath.hasSuffix(".tmpl") {
        guard let template = String(data: bytes, encoding: .utf8) else {
          throw GenerationError.templateNotText(file: source.path)
        }
        let rendered = try render(
          template, templatePath: relativePath, file: source.path, input: input, features: features)
        try plan(String(relativePath.dropLast(".tmpl".count)), .contents(Data(rendered.utf8)))
      } else {
        try plan(relativePath, .contents(bytes))
      }
    }
    for model in input.models {
      try plan(modelsDirectory + "/" + model.resourceName, .model(model))
    }
    try plan(customerFile, .contents(try StableJSON.encode(CustomerFile(input, features: features))))
    try plan(
      PrivacyManifest.file,
      .contents(Data(PrivacyManifest.render(template.features.privacy(of: features)).utf8)))
    try plan(
      changelogFile,
      .contents(
        ReleaseNotes.changelog(
          customerName: input.customer.name ?? input.customer.id, notes: input.releaseNotes)))
    return outputs
  }

  /// The file name of a release's zip, `<package name>-<version>.zip` (its signature is the
  /// same name with `.sig`).
  public static func archiveName(packageName: String, version: String) -> String {
    "\(packageName)-\(version).zip"
  }

  /// The version in the template's `SDKVersion.swift`, which must sit on one line shaped
  /// `public let contextSDKVersion = "<version>"` (the release bump rewrites that line).
  public static func templateSDKVersion(_ templateDirectory: URL) throws -> String {
    let file = templateDirectory.appendingPathComponent(sdkVersionFile)
    return try sdkVersion(in: try read(file), file: file)
  }

  static func sdkVersion(in bytes: Data, file: URL) throws -> String {
    guard let text = String(data: bytes, encoding: .utf8) else {
      throw GenerationError.templateNotText(file: file.path)
    }
    let prefix = "public let contextSDKVersion = \""
    let declarations = text.split(separator: "\n", omittingEmptySubsequences: false)
      .filter { $0.contains("contextSDKVersion") && !$0.trimmingCharacters(in: .whitespaces).hasPrefix("//") }
    let versions = declarations.compactMap { line -> String? in
      guard line.hasPrefix(prefix), line.hasSuffix("\""), line.count > prefix.count + 1 else { return nil }
      let version = line.dropFirst(prefix.count).dropLast()
      return version.contains(where: { $0 == "\"" || $0 == "\\" }) ? nil : String(version)
    }
    guard declarations.count == 1, let version = versions.first else {
      throw GenerationError.sdkVersionLineMissing(file: file.path, found: versions.count)
    }
    return version
  }

  // MARK: - Values for each template

  private static func render(
    _ template: String, templatePath: String, file: String, input: GenerationInput, features: [Feature]
  ) throws -> String {
    switch templatePath {
    case packageManifestTemplate:
      return try TemplateRenderer.render(
        template, file: file,
        values: [
          "featureModules": SwiftEmitter.multilineArrayLiteral(
            features.map { SwiftEmitter.stringLiteral($0.module) }, indentationLevel: 0)
        ])
    case registryTemplate:
      return try TemplateRenderer.render(
        template, file: file, values: try registryValues(features: features))
    case readmeTemplate:
      let readme = try TemplateRenderer.render(
        template, file: file, values: readmeValues(input, features: features))
      guard let check = input.signatureCheck else { return readme }
      return readme
        + (try SignatureSection.render(
          check, archiveName: archiveName(packageName: input.packageName, version: input.version)))
    case signalsTemplate:
      // Only what the build's features compute: a signal of a feature the customer does not
      // have is not part of its SDK.
      let computed = Set(features.flatMap(\.signals))
      let signals = input.signals.keys.filter(computed.contains).sorted().map {
        (key: SwiftEmitter.stringLiteral($0), value: SwiftEmitter.stringLiteral(input.signals[$0]!))
      }
      return try TemplateRenderer.render(
        template, file: file,
        values: ["signals": SwiftEmitter.multilineDictionaryLiteral(signals, indentationLevel: 1)])
    default:
      throw GenerationError.unknownTemplate(
        file: file, known: [packageManifestTemplate, readmeTemplate, registryTemplate, signalsTemplate])
    }
  }

  private static func registryValues(features: [Feature]) throws -> [String: EmittedSwift] {
    ["imports": try SwiftEmitter.imports(["ContextSDKCore"], exported: features.map(\.module))]
  }

  private static func readmeValues(_ input: GenerationInput, features: [Feature]) -> [String: MarkdownText] {
    let featureLines = features.map { feature in
      MarkdownText.concatenating([
        .literal("- "), .codeSpan(feature.name), .literal(" (module "), .codeSpan(feature.module),
        .literal("): "), .escaping(feature.summary),
      ])
    }
    let flows = input.models.map { embedded in
      MarkdownText.concatenating([
        .literal("- "), .codeSpan(embedded.model.flowName), .literal(" (flow "),
        .escaping(String(embedded.model.flowId)), .literal("): model version "),
        .escaping(String(embedded.model.modelVersion)),
      ])
    }
    let bundleIdentifiers = input.customer.bundleIdentifiers.enumerated().flatMap { index, identifier in
      index == 0 ? [MarkdownText.codeSpan(identifier)] : [.literal(", "), .codeSpan(identifier)]
    }
    return [
      "customerName": .escaping(input.customer.name ?? input.customer.id),
      "sdkVersion": .escaping(input.sdkVersion),
      "version": .escaping(input.version),
      "installation": InstallSection.render(input),
      // `validate` guarantees at least one model.
      "exampleFlowName": .swiftCode(SwiftEmitter.stringLiteral(input.models[0].model.flowName)),
      "flows": .lines(flows),
      "features": .lines(featureLines),
      "bundleIdentifiers": .concatenating(bundleIdentifiers),
    ]
  }

  /// SwiftPM names a package added by URL after the URL's last path component, without `.git`;
  /// `.product(name:package:)` must use that name, not the manifest's `name:`.
  public static func packageIdentity(ofRepositoryURL url: String) -> String {
    var trimmed = Substring(url)
    while trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
    let lastComponent = trimmed.split(whereSeparator: { $0 == "/" || $0 == ":" }).last.map(String.init) ?? ""
    return lastComponent.hasSuffix(".git") ? String(lastComponent.dropLast(4)) : lastComponent
  }

  // MARK: - Input checks

  private static func validate(_ input: GenerationInput, features: [Feature], catalog: FeatureCatalog) throws
  {
    guard SwiftEmitter.isPlainIdentifier(input.packageName) else {
      throw GenerationError.invalidPackageName(found: input.packageName)
    }
    guard !input.models.isEmpty else { throw GenerationError.noModels(customer: input.customer.id) }
    for embedded in input.models where !isFileNameSafe(embedded.model.flowName) {
      throw GenerationError.invalidFlowName(customer: input.customer.id, found: embedded.model.flowName)
    }
    guard !features.isEmpty else { throw GenerationError.noFeatures(customer: input.customer.id) }
    for embedded in input.models {
      let flow = embedded.model.flowName
      guard let feature = catalog.feature(servingFlow: flow), features.contains(feature) else {
        throw GenerationError.flowWithoutFeature(
          customer: input.customer.id, flowName: flow, features: features.map(\.name))
      }
    }
  }

  /// Flow names become file and directory names (in the package and in the SDK's downloads
  /// folder), so they may not contain separators, dots or anything a file system treats specially.
  private static func isFileNameSafe(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix("-")
      && name.unicodeScalars.allSatisfy { scalar in
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
          || scalar == "_" || scalar == "-"
      }
  }

  // MARK: - Files

  /// One file of a generated package: bytes made from the template, or a model copied from the
  /// store (its bytes are the embedded model's, checked by SHA-256 while copying).
  public enum PackageFile: Equatable, Sendable {
    case contents(Data)
    case model(EmbeddedModel)
  }

  /// Relative paths of the template's regular files, sorted. Finder's `.DS_Store` files are
  /// skipped: they are not part of the template and would make the digest machine-dependent.
  static func templateFiles(in templateDirectory: URL) throws -> [String] {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: templateDirectory.path, isDirectory: &isDirectory),
      isDirectory.boolValue, let walker = FileManager.default.enumerator(atPath: templateDirectory.path)
    else { throw GenerationError.templateNotFound(directory: templateDirectory.path) }
    var files: [String] = []
    while let relativePath = walker.nextObject() as? String {
      switch walker.fileAttributes?[.type] as? FileAttributeType {
      case .typeDirectory?:
        continue
      case .typeRegular?:
        if (relativePath as NSString).lastPathComponent != ".DS_Store" { files.append(relativePath) }
      default:
        throw GenerationError.unsupportedTemplateEntry(
          file: templateDirectory.appendingPathComponent(relativePath).path)
      }
    }
    return files.sorted()
  }

  /// Makes `directory` ready to receive `outputs`: creates it, refuses entries generation would
  /// not write, and removes files and directories that are not (ancestors of) outputs.
  private static func prepare(_ directory: URL, for outputs: Set<String>) throws {
    try AtomicFile.createDirectory(directory)
    let topLevelEntries = Set(outputs.map { String($0.prefix { $0 != "/" }) })
    let existing: [String]
    do { existing = try FileManager.default.contentsOfDirectory(atPath: directory.path) } catch {
      throw SystemError.cannotRead(path: directory.path, reason: error.localizedDescription)
    }
    for entry in existing.sorted() where !topLevelEntries.contains(entry) && !preservedEntries.contains(entry)
    {
      throw GenerationError.unexpectedEntry(
        directory: directory.path, found: entry, expected: topLevelEntries.union(preservedEntries).sorted())
    }

    var outputDirectories = Set<String>()
    for output in outputs {
      var parent = (output as NSString).deletingLastPathComponent
      while !parent.isEmpty {
        outputDirectories.insert(parent)
        parent = (parent as NSString).deletingLastPathComponent
      }
    }
    for entry in topLevelEntries.sorted() {
      let entryURL = directory.appendingPathComponent(entry)
      try removeStale(entry, at: entryURL, outputs: outputs, outputDirectories: outputDirectories)
      guard outputDirectories.contains(entry),
        let walker = FileManager.default.enumerator(atPath: entryURL.path)
      else { continue }
      while let below = walker.nextObject() as? String {
        let relativePath = entry + "/" + below
        if try removeStale(
          relativePath, at: directory.appendingPathComponent(relativePath), outputs: outputs,
          outputDirectories: outputDirectories)
        {
          walker.skipDescendants()
        }
      }
    }
  }

  /// Removes what sits at `relativePath` unless it has the kind the plan needs there (a
  /// directory above outputs, or a file that is an output). Returns whether it removed it.
  @discardableResult
  private static func removeStale(
    _ relativePath: String, at url: URL, outputs: Set<String>, outputDirectories: Set<String>
  ) throws -> Bool {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path) else { return false }
    let isDirectory = attributes[.type] as? FileAttributeType == .typeDirectory
    let isWanted =
      isDirectory ? outputDirectories.contains(relativePath) : outputs.contains(relativePath)
    guard !isWanted else { return false }
    do { try FileManager.default.removeItem(at: url) } catch {
      throw SystemError.cannotWrite(path: url.path, reason: error.localizedDescription)
    }
    return true
  }

  private static func write(_ file: PackageFile, to url: URL) throws {
    switch file {
    case .contents(let bytes):
      if let existing = try? Data(contentsOf: url), existing == bytes { return }
      try AtomicFile.write(bytes, to: url, durable: false)
    case .model(let embedded):
      if let existing = try? SHA256Digest.hexAndSize(ofFileAt: url),
        existing.sha256 == embedded.sha256, existing.size == embedded.size
      {
        return
      }
      try copyModel(embedded, to: url)
    }
  }

  /// Streams the model in fixed blocks (models can be large) and checks the bytes copied
  /// against the digest customer.json records, so the package never ships a different file.
  private static func copyModel(_ embedded: EmbeddedModel, to url: URL) throws {
    try AtomicFile.produce(url, durable: false) { temporary in
      guard FileManager.default.createFile(atPath: temporary.path, contents: nil),
        let output = FileHandle(forWritingAtPath: temporary.path)
      else { throw SystemError.cannotWrite(path: temporary.path, reason: "cannot create file") }
      defer { try? output.close() }
      // Never blocks, and refuses a FIFO or device swapped in since the store checked it.
      let source = try RegularFile.handle(embedded.sourceFile)
      defer { try? source.close() }
      var hasher = SHA256Hasher()
      while true {
        let block: Data
        do { block = try source.read(upToCount: 64 * 1024) ?? Data() } catch {
          throw SystemError.cannotRead(path: embedded.sourceFile.path, reason: error.localizedDescription)
        }
        if block.isEmpty { break }
        hasher.update(block)
        do { try output.write(contentsOf: block) } catch {
          throw SystemError.cannotWrite(path: temporary.path, reason: error.localizedDescription)
        }
      }
      let copiedDigest = hasher.finalizeHex()
      guard copiedDigest == embedded.sha256 else {
        throw GenerationError.modelChanged(
          file: embedded.sourceFile.path, found: copiedDigest, expected: embedded.sha256)
      }
    }
  }

  static func read(_ url: URL) throws -> Data {
    do { return try Data(contentsOf: url) } catch {
      throw SystemError.cannotRead(path: url.path, reason: error.localizedDescription)
    }
  }
}

/// The template's files, read once: the bytes every package of a run is generated from and
/// checked against, with their digest, the SDK version they carry and the features they offer.
public struct PackageTemplate: Sendable {
  public let directory: URL
  /// Every regular file by relative path, sorted by path.
  public let files: [(path: String, bytes: Data)]
  /// SHA-256 over every file (see `digest(of:)`): the SDK's code as a whole, for the SDK tag.
  public let digest: String
  /// `contextSDKVersion` of `SDKVersion.swift`.
  public let sdkVersion: String
  /// `features.json`: which files are which feature's.
  public let features: FeatureCatalog

  /// Throws unless the template's `contextSDKVersion` is `expected` (the SDK version being
  /// released), so a package never claims one SDK version while carrying another's code.
  public func checkSDKVersion(expected: String) throws {
    guard sdkVersion == expected else {
      throw GenerationError.sdkVersionMismatch(
        file: directory.appendingPathComponent(PackageGenerator.sdkVersionFile).path, found: sdkVersion,
        expected: expected)
    }
  }

  /// The files a package with `features` is made from: the shared core's and those features'
  /// own, plus the tool's inputs (`signals.json`, `features.json`).
  public func files(for features: [Feature]) -> [(path: String, bytes: Data)] {
    files.filter { file in
      guard let owner = self.features.owner(of: file.path) else { return true }
      return features.contains(owner)
    }
  }

  /// The digest of what a package with `features` is made from: a change to another feature's
  /// module does not change it, so it releases only the customers that have that feature.
  public func digest(for features: [Feature]) -> String { Self.digest(of: files(for: features)) }

  /// SHA-256 over files in sorted order of their relative paths, each framed as
  /// `path NUL size NUL bytes`: any change to a name or a byte changes the digest.
  static func digest(of files: [(path: String, bytes: Data)]) -> String {
    var hasher = SHA256Hasher()
    for file in files {
      hasher.update(Data("\(file.path)\u{0}\(file.bytes.count)\u{0}".utf8))
      hasher.update(file.bytes)
    }
    return hasher.finalizeHex()
  }

  /// - Parameter displayPath: how messages name the directory (`templates/ContextSDK`).
  public static func load(_ directory: URL, displayPath: String? = nil) throws -> PackageTemplate {
    var files: [(path: String, bytes: Data)] = []
    let paths = try PackageGenerator.templateFiles(in: directory)
    for relativePath in paths {
      files.append((relativePath, try PackageGenerator.read(directory.appendingPathComponent(relativePath))))
    }
    let versionFile = directory.appendingPathComponent(PackageGenerator.sdkVersionFile)
    guard let versionBytes = files.first(where: { $0.path == PackageGenerator.sdkVersionFile })?.bytes else {
      throw SystemError.cannotRead(path: versionFile.path, reason: "missing from the template")
    }
    let featuresPath = (displayPath ?? directory.path) + "/" + FeatureCatalog.fileName
    guard let featureBytes = files.first(where: { $0.path == FeatureCatalog.fileName })?.bytes else {
      throw ValidationFailure([
        Diagnostic(
          file: featuresPath, path: "",
          message: "missing from the template; expected the features customers can license")
      ])
    }
    return PackageTemplate(
      directory: directory, files: files, digest: digest(of: files),
      sdkVersion: try PackageGenerator.sdkVersion(in: versionBytes, file: versionFile),
      features: try FeatureCatalog.load(data: featureBytes, displayPath: featuresPath, templateFiles: paths))
  }
}
