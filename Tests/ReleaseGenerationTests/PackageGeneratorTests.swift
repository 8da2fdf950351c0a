import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem
import XCTest

final class PackageGeneratorTests: XCTestCase {
  private let template = GenerationFixtures.templateDirectory

  private func generate(_ input: GenerationInput, into directory: URL) throws -> GeneratedPackage {
    try PackageGenerator.generate(
      input, template: try PackageTemplate.load(template), into: directory)
  }

  private func contents(of directory: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    let walker = try XCTUnwrap(FileManager.default.enumerator(atPath: directory.path))
    while let path = walker.nextObject() as? String {
      if walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular {
        files[path] = try Data(contentsOf: directory.appendingPathComponent(path))
      }
    }
    return files
  }

  func testWritesTemplateFilesRenderedTemplatesAndModels() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self).appendingPathComponent("ContextSDK")
    let package = try generate(try GenerationFixtures.input(), into: directory)
    XCTAssertEqual(package.files, package.files.sorted())
    XCTAssertEqual(package.files, try contents(of: directory).keys.sorted())
    XCTAssertTrue(package.files.contains("Package.swift"))
    XCTAssertTrue(package.files.contains("Sources/ContextSDK/CustomerRegistry.swift"))
    XCTAssertFalse(package.files.contains { $0.hasSuffix(".tmpl") })
    XCTAssertEqual(
      package.files.filter { $0.hasPrefix(PackageGenerator.modelsDirectory + "/") },
      [
        "Sources/ContextSDK/Resources/Models/onboarding_upsell_v73.mlmodel",
        "Sources/ContextSDK/Resources/Models/paywall_timing_v14.mlmodel",
      ])
    let copied = directory.appendingPathComponent(
      "Sources/ContextSDK/Resources/Models/paywall_timing_v14.mlmodel")
    let source = GenerationFixtures.modelsDirectory.appendingPathComponent("paywall_timing/14.mlmodel")
    XCTAssertEqual(try Data(contentsOf: copied), try Data(contentsOf: source))
  }

  /// The signed channel (the customer's id, the pinned keys, the signed manifest's URL) is in
  /// customer.json only when keys and the URL are given; without, the keys are left out.
  func testCustomerFileCarriesTheSignedChannelOnlyWithKeysAndURL() throws {
    let root = try GenerationFixtures.temporaryDirectory(self)
    func customerFile(_ input: GenerationInput, _ name: String) throws -> [String: Any] {
      let directory = root.appendingPathComponent(name)
      _ = try generate(input, into: directory)
      let data = try Data(contentsOf: directory.appendingPathComponent(PackageGenerator.customerFile))
      return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }
    let signed = try customerFile(try GenerationFixtures.input(), "signed")
    XCTAssertEqual(signed["customer"] as? String, GenerationFixtures.customer.id)
    XCTAssertEqual(
      signed["trustedKeys"] as? [[String: String]],
      [["keyID": GenerationFixtures.trustedKey.keyID, "publicKey": GenerationFixtures.trustedKey.publicKey]])
    XCTAssertNotNil(signed["manifestURL"])
    for (name, keys, url) in [
      ("none", nil, nil), ("no-url", [GenerationFixtures.trustedKey], nil),
      ("no-keys", nil, "https://sdk.example.com/ota/0123456789abcdef0123456789abcdef/manifest.json"),
    ] as [(String, [PinnedKey]?, String?)] {
      var input = try GenerationFixtures.input()
      input.trustedKeys = keys
      input.manifestURL = url
      let file = try customerFile(input, name)
      XCTAssertNil(file["customer"], name)
      XCTAssertNil(file["trustedKeys"], name)
      XCTAssertNil(file["manifestURL"], name)
      XCTAssertNotNil(file["modelManifestURL"], name)
    }
  }

  /// The README's signature section without a published `allowed_signers` line, and with
  /// values that would break out of their code block or shell word if inserted as they are.
  func testSignatureSectionWithoutURLSaysToAskAndKeepsValuesInPlace() throws {
    var input = try GenerationFixtures.input()
    let readme = { (input: GenerationInput) throws -> String in
      let files = try PackageGenerator.files(input, template: try PackageTemplate.load(self.template))
      guard case .contents(let bytes)? = files["README.md"] else { throw CocoaError(.fileReadNoSuchFile) }
      return String(decoding: bytes, as: UTF8.self)
    }
    let keyless = try readme(input)
    input.signatureCheck = SignatureCheck(
      fingerprints: ["SHA256:first"], identity: "ops team\n```\n# x", namespace: "ns")
    let signed = try readme(input)

    XCTAssertFalse(keyless.contains("Checking the signature"))
    XCTAssertTrue(signed.hasPrefix(keyless), "the section only adds to the README")
    let section = String(signed.dropFirst(keyless.count))
    XCTAssertTrue(section.hasPrefix("\n## Checking the signature\n"), section)
    XCTAssertTrue(section.contains("\n- `SHA256:first`\n"), section)
    XCTAssertTrue(section.contains("Ask us for the `allowed_signers` line"), section)
    XCTAssertFalse(section.contains("We publish"), section)
    // The identity's line break is a space and the whole identity one quoted shell word: the
    // fence is closed only by the template's own line, and no heading is added.
    XCTAssertTrue(
      section.contains(
        "\nssh-keygen -Y verify -f allowed_signers -I 'ops team ``` # x' -n ns -s ContextSDK_FixtureCo-3.1.0.zip.sig < ContextSDK_FixtureCo-3.1.0.zip\n```\n"
      ), section)
    XCTAssertEqual(section.components(separatedBy: "\n```").count, 3, section)
    XCTAssertEqual(section.components(separatedBy: "\n#").count, 2, section)
  }

  func testSameInputGivesTheSameBytes() throws {
    let root = try GenerationFixtures.temporaryDirectory(self)
    let input = try GenerationFixtures.input()
    _ = try generate(input, into: root.appendingPathComponent("first"))
    _ = try generate(input, into: root.appendingPathComponent("second"))
    XCTAssertEqual(
      try contents(of: root.appendingPathComponent("first")),
      try contents(of: root.appendingPathComponent("second")))
  }

  func testRegeneratingForAnotherCustomerReplacesModelsKeepsBuildAndUnchangedFiles() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self).appendingPathComponent("ContextSDK")
    _ = try generate(try GenerationFixtures.input(), into: directory)
    let buildState = directory.appendingPathComponent(".build/debug/state")
    try FileManager.default.createDirectory(
      at: buildState.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("warm".utf8).write(to: buildState)
    let coreFile = directory.appendingPathComponent("Sources/ContextSDKCore/ModelResolver.swift")
    let past = Date(timeIntervalSince1970: 1_000_000_000)
    try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: coreFile.path)

    let package = try generate(
      try GenerationFixtures.input(for: GenerationFixtures.otherCustomer), into: directory)

    XCTAssertEqual(
      try contents(of: directory).keys.filter { !$0.hasPrefix(".build/") }.sorted(), package.files)
    XCTAssertEqual(
      package.files.filter { $0.hasPrefix(PackageGenerator.modelsDirectory + "/") },
      ["Sources/ContextSDK/Resources/Models/rating_request_v31.mlmodel"])
    XCTAssertEqual(try Data(contentsOf: buildState), Data("warm".utf8), ".build is kept")
    let modified = try FileManager.default.attributesOfItem(atPath: coreFile.path)[.modificationDate] as? Date
    XCTAssertEqual(modified, past, "unchanged files are not rewritten, so incremental builds skip them")
  }

  func testRefusesADirectoryThatIsNotAGeneratedPackage() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self)
    try Data().write(to: directory.appendingPathComponent("notes.txt"))
    XCTAssertThrowsError(try generate(try GenerationFixtures.input(), into: directory)) { error in
      guard case .unexpectedEntry(_, "notes.txt", let expected)? = error as? GenerationError else {
        return XCTFail("expected unexpectedEntry, got \(error)")
      }
      XCTAssertTrue(expected.contains("Sources") && expected.contains(".build"), "\(expected)")
    }
    XCTAssertTrue(FileManager.default.fileExists(atPath: directory.appendingPathComponent("notes.txt").path))
  }

  func testSDKVersionMustMatchTheTemplate() throws {
    var input = try GenerationFixtures.input()
    let templateVersion = input.sdkVersion
    input.sdkVersion = "99.0.0"
    let directory = try GenerationFixtures.temporaryDirectory(self)
    XCTAssertThrowsError(try generate(input, into: directory)) { error in
      let file = self.template.appendingPathComponent(PackageGenerator.sdkVersionFile).path
      XCTAssertEqual(
        error as? GenerationError, .sdkVersionMismatch(file: file, found: templateVersion, expected: "99.0.0")
      )
      XCTAssertEqual(
        "\(error)",
        "\(file): contextSDKVersion is \"\(templateVersion)\", expected \"99.0.0\" (the SDK version being released)"
      )
    }
  }

  func testSDKVersionLineMustKeepItsShape() throws {
    let template = try copyOfTemplate()
    let versionFile = template.appendingPathComponent(PackageGenerator.sdkVersionFile)
    for text in [
      "public let contextSDKVersion: String = \"2.4.0\"\n",
      "public let contextSDKVersion = \"2.4.0\"\npublic let contextSDKVersion = \"2.5.0\"\n",
      "let somethingElse = 1\n",
    ] {
      try text.write(to: versionFile, atomically: true, encoding: .utf8)
      XCTAssertThrowsError(try PackageGenerator.templateSDKVersion(template), text) { error in
        guard case .sdkVersionLineMissing? = error as? GenerationError else {
          return XCTFail("expected sdkVersionLineMissing, got \(error)")
        }
      }
    }
    try "// comment\npublic let contextSDKVersion = \"3.0.0-beta.1\"\n".write(
      to: versionFile, atomically: true, encoding: .utf8)
    XCTAssertEqual(try PackageGenerator.templateSDKVersion(template), "3.0.0-beta.1")
  }

  func testModelBytesMustMatchTheRecordedDigest() throws {
    var input = try GenerationFixtures.input()
    input.models[0].sha256 = String(repeating: "0", count: 64)
    let directory = try GenerationFixtures.temporaryDirectory(self).appendingPathComponent("ContextSDK")
    XCTAssertThrowsError(try generate(input, into: directory)) { error in
      guard case .modelChanged(let file, _, let expected)? = error as? GenerationError else {
        return XCTFail("expected modelChanged, got \(error)")
      }
      XCTAssertEqual(file, input.models[0].sourceFile.path)
      XCTAssertEqual(expected, input.models[0].sha256)
    }
    let modelsFolder = directory.appendingPathComponent(PackageGenerator.modelsDirectory)
    let left = (try? FileManager.default.contentsOfDirectory(atPath: modelsFolder.path)) ?? []
    XCTAssertFalse(left.contains(input.models[0].resourceName), "no partial model under its final name")
  }

  func testRejectsInputThatCannotBecomeAPackage() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self)
    var noModels = try GenerationFixtures.input()
    noModels.models = []
    XCTAssertThrowsError(try generate(noModels, into: directory)) { error in
      XCTAssertEqual(error as? GenerationError, .noModels(customer: "fixture-co"))
    }
    var badName = try GenerationFixtures.input()
    badName.packageName = "ContextSDK-Fixture"
    XCTAssertThrowsError(try generate(badName, into: directory)) { error in
      XCTAssertEqual(error as? GenerationError, .invalidPackageName(found: "ContextSDK-Fixture"))
    }
    var traversal = try GenerationFixtures.input()
    traversal.models[0].model.flowName = "../escape"
    XCTAssertThrowsError(try generate(traversal, into: directory)) { error in
      XCTAssertEqual(error as? GenerationError, .invalidFlowName(customer: "fixture-co", found: "../escape"))
    }
    var duplicate = try GenerationFixtures.input()
    duplicate.models.append(duplicate.models[0])
    XCTAssertThrowsError(try generate(duplicate, into: directory)) { error in
      guard case .duplicateOutput? = error as? GenerationError else { return XCTFail("\(error)") }
    }
  }

  func testAModelOfAFeatureTheCustomerDoesNotHaveIsRefused() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self)
    var input = try GenerationFixtures.input()
    input.customer.features = ["att"]
    XCTAssertThrowsError(try generate(input, into: directory)) { error in
      XCTAssertEqual(
        error as? GenerationError,
        .flowWithoutFeature(customer: "fixture-co", flowName: "onboarding_upsell", features: ["att"]))
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [], "nothing written")
  }

  /// SwiftPM evaluates a manifest again whenever its bytes change: customers with the same
  /// features share it byte for byte, so a warm build directory skips that for the next one.
  func testCustomersWithTheSameFeaturesGetTheSameManifest() throws {
    let template = try PackageTemplate.load(GenerationFixtures.templateDirectory)
    let manifest = { (customer: Customer) in
      try PackageGenerator.files(try GenerationFixtures.input(for: customer), template: template)[
        "Package.swift"]
    }
    XCTAssertEqual(try manifest(GenerationFixtures.customer), try manifest(GenerationFixtures.otherCustomer))
    XCTAssertNotEqual(try manifest(GenerationFixtures.customer), try manifest(GenerationFixtures.attCustomer))
  }

  func testAFeaturesDigestChangesWithItsOwnFilesOnly() throws {
    let template = try copyOfTemplate()
    let loaded = try PackageTemplate.load(template)
    let att = try XCTUnwrap(loaded.features.feature(named: "att"))
    let conversion = try XCTUnwrap(loaded.features.feature(named: "conversion"))
    let conversionFile = template.appendingPathComponent(
      "Sources/ContextSDKConversion/ConversionMoment.swift")
    try (try Data(contentsOf: conversionFile) + Data("// changed\n".utf8)).write(to: conversionFile)
    let changed = try PackageTemplate.load(template)
    XCTAssertEqual(changed.digest(for: [att]), loaded.digest(for: [att]))
    XCTAssertNotEqual(changed.digest(for: [conversion]), loaded.digest(for: [conversion]))
    XCTAssertNotEqual(changed.digest(for: [att, conversion]), loaded.digest(for: [att, conversion]))
    XCTAssertNotEqual(loaded.digest(for: [att]), loaded.digest(for: [conversion]))
  }

  func testUnknownTemplateFileIsAnError() throws {
    let template = try copyOfTemplate()
    try "{{x}}".write(
      to: template.appendingPathComponent("CHANGELOG.md.tmpl"), atomically: true, encoding: .utf8)
    let directory = try GenerationFixtures.temporaryDirectory(self)
    XCTAssertThrowsError(
      try PackageGenerator.generate(
        try GenerationFixtures.input(), template: try PackageTemplate.load(template), into: directory)
    ) { error in
      guard case .unknownTemplate(let file, _)? = error as? GenerationError else {
        return XCTFail("\(error)")
      }
      XCTAssertTrue(file.hasSuffix("CHANGELOG.md.tmpl"), file)
    }
  }

  func testTemplateDigestCoversNamesAndBytes() throws {
    let template = try copyOfTemplate()
    let original = try PackageTemplate.load(template).digest
    XCTAssertEqual(original, try PackageTemplate.load(GenerationFixtures.templateDirectory).digest)
    XCTAssertEqual(original.count, 64)

    let readme = template.appendingPathComponent("README.md.tmpl")
    let bytes = try Data(contentsOf: readme)
    try (bytes + Data(" ".utf8)).write(to: readme)
    let changedBytes = try PackageTemplate.load(template).digest
    XCTAssertNotEqual(changedBytes, original)

    try bytes.write(to: readme)
    XCTAssertEqual(try PackageTemplate.load(template).digest, original)
    try FileManager.default.moveItem(at: readme, to: template.appendingPathComponent("README2.md.tmpl"))
    XCTAssertNotEqual(try PackageTemplate.load(template).digest, original)
  }

  func testPackageIdentityIsTheRepositoryName() {
    let identity = PackageGenerator.packageIdentity(ofRepositoryURL:)
    XCTAssertEqual(identity("https://git.example.com/sdk/releases-acme.git"), "releases-acme")
    XCTAssertEqual(identity("https://git.example.com/sdk/releases-acme/"), "releases-acme")
    XCTAssertEqual(identity("git@git.example.com:sdk/acme.git"), "acme")
    XCTAssertEqual(identity("file:///tmp/acme.git"), "acme")
  }

  private func copyOfTemplate() throws -> URL {
    let copy = try GenerationFixtures.temporaryDirectory(self).appendingPathComponent("ContextSDK")
    try FileManager.default.copyItem(at: GenerationFixtures.templateDirectory, to: copy)
    return copy
  }
}
