import Foundation
import ReleaseGeneration
import ReleaseManifest
import XCTest

/// Compares the packages generated for the fixture customers, one per feature set, with the
/// committed files in `Tests/Fixtures/Generation/Golden/<feature set>`, so any change to the
/// template or the generator shows up as a reviewed diff. After an intended change:
/// `UPDATE_GOLDEN=1 swift test --filter GoldenTests` (see Tests/Fixtures/Generation/README.md).
///
/// The goldens are made from the template with its SDK version pinned to `goldenSDKVersion`:
/// `release bump` rewrites that version in the template, and a bump must not break CI.
final class GoldenTests: XCTestCase {
  private let updateCommand = "UPDATE_GOLDEN=1 swift test --filter GoldenTests"
  private let goldenSDKVersion = "0.0.0-golden"

  func testConversionOnlyPackageMatchesGoldenFiles() throws {
    try checkGolden("conversion", customer: GenerationFixtures.customer, features: ["conversion"])
  }

  func testATTOnlyPackageMatchesGoldenFiles() throws {
    try checkGolden("att", customer: GenerationFixtures.attCustomer, features: ["att"])
  }

  func testPackageWithBothFeaturesMatchesGoldenFiles() throws {
    try checkGolden(
      "att-conversion", customer: GenerationFixtures.bothFeaturesCustomer, features: ["att", "conversion"])
  }

  /// A signed release's README: the section on checking the zip's signature, with two trusted
  /// keys whose fingerprints OpenSSH computes (`ssh-keygen -l`), not the tool.
  func testSignedPackageReadmeMatchesGoldenFiles() throws {
    let check = SignatureCheck(
      fingerprints: try GenerationFixtures.signingKeys.map(
        GenerationFixtures.sshKeygenFingerprint(ofRawKey:)),
      identity: "release@contextsdk", namespace: "contextsdk-release",
      allowedSignersURL: "https://sdk.example.com/contextsdk/allowed_signers")
    XCTAssertEqual(check.fingerprints.count, 2)
    XCTAssertEqual(Set(check.fingerprints).count, 2)
    try checkGolden(
      "conversion-signed", customer: GenerationFixtures.customer, features: ["conversion"],
      signatureCheck: check)
  }

  /// - Parameter features: the features the package must hold, named here rather than taken
  ///   from the generator, so that the file checks below do not trust what they check.
  private func checkGolden(
    _ name: String, customer: Customer, features: Set<String>, signatureCheck: SignatureCheck? = nil
  ) throws {
    let golden = GenerationFixtures.goldenDirectory.appendingPathComponent(name, isDirectory: true)
    let scratch = try GenerationFixtures.temporaryDirectory(self, keepOnFailure: true)
    let template = try pinnedTemplate(in: scratch)
    let output = scratch.appendingPathComponent("ContextSDK", isDirectory: true)
    var input = try GenerationFixtures.input(for: customer)
    input.sdkVersion = goldenSDKVersion
    input.signatureCheck = signatureCheck
    let package = try PackageGenerator.generate(
      input, template: try PackageTemplate.load(template), into: output)
    let modelPrefix = PackageGenerator.modelsDirectory + "/"
    // The goldens hold what the generator makes (the rendered `.tmpl` files, the customer's
    // configuration, its privacy manifest and the release notes); every other file of the package must be the
    // template's own file, byte for byte.
    let made = [PackageGenerator.changelogFile, PackageGenerator.customerFile, PrivacyManifest.file]
    let rendered = package.files.filter {
      FileManager.default.fileExists(atPath: template.appendingPathComponent($0 + ".tmpl").path)
        || made.contains($0)
    }
    let copied = package.files.filter { !$0.hasPrefix(modelPrefix) && !rendered.contains($0) }
    XCTAssertFalse(rendered.isEmpty)
    for file in copied {
      XCTAssertEqual(
        try Data(contentsOf: output.appendingPathComponent(file)),
        try Data(contentsOf: template.appendingPathComponent(file)),
        "\(file) is not the template's file byte for byte")
    }
    // And nothing of the template is lost on the way, but the tool's own inputs and the
    // modules (with their tests) of the features the customer does not have.
    let featureModules = ["att": "ContextSDKATT", "conversion": "ContextSDKConversion"]
    let otherFeatureDirectories = featureModules.filter { !features.contains($0.key) }.flatMap {
      ["Sources/\($0.value)/", "Tests/\($0.value)Tests/"]
    }
    let templateFiles = Set(
      (FileManager.default.enumerator(atPath: template.path)?.allObjects as? [String] ?? []).filter {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(
          atPath: template.appendingPathComponent($0).path, isDirectory: &isDirectory)
          && !isDirectory.boolValue
      })
    let expected = templateFiles.subtracting(PackageGenerator.toolInputFiles).filter { file in
      !otherFeatureDirectories.contains { file.hasPrefix($0) }
    }
    XCTAssertEqual(
      Set(copied).union(rendered.filter { !made.contains($0) }.map { $0 + ".tmpl" }),
      expected)
    for module in featureModules.values {
      let holdsModule = package.files.contains { $0.hasPrefix("Sources/\(module)/") }
      XCTAssertEqual(holdsModule, features.contains { featureModules[$0] == module }, module)
    }

    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
      try? FileManager.default.removeItem(at: golden)
      for file in rendered {
        let destination = golden.appendingPathComponent(file)
        try FileManager.default.createDirectory(
          at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: output.appendingPathComponent(file), to: destination)
      }
      print("GoldenTests: rewrote \(rendered.count) files in \(golden.path)")
      return
    }

    let hint =
      "compare with `diff -ru \(golden.path) \(output.path)`; if the change is intended, run `\(updateCommand)` and commit the result"
    XCTAssertEqual(rendered, try goldenFiles(golden), "rendered files differ from the golden set: \(hint)")
    for file in rendered
    where FileManager.default.fileExists(atPath: golden.appendingPathComponent(file).path) {
      let generated = try String(contentsOf: output.appendingPathComponent(file), encoding: .utf8)
      let expected = try String(contentsOf: golden.appendingPathComponent(file), encoding: .utf8)
      if generated != expected {
        XCTFail("\(file): \(firstDifference(expected: expected, generated: generated)); \(hint)")
      }
    }

    // Models are binary: check they are the fixture's bytes, file for file.
    for embedded in input.models {
      let copied = output.appendingPathComponent(modelPrefix + embedded.resourceName)
      XCTAssertEqual(
        try Data(contentsOf: copied), try Data(contentsOf: embedded.sourceFile), embedded.resourceName)
    }
  }

  /// A copy of the template whose only difference is the SDK version line.
  private func pinnedTemplate(in scratch: URL) throws -> URL {
    let template = scratch.appendingPathComponent("template", isDirectory: true)
    try FileManager.default.copyItem(at: GenerationFixtures.templateDirectory, to: template)
    let versionFile = template.appendingPathComponent(PackageGenerator.sdkVersionFile)
    let current = try PackageGenerator.templateSDKVersion(template)
    let text = try String(contentsOf: versionFile, encoding: .utf8)
    try text.replacingOccurrences(
      of: "public let contextSDKVersion = \"\(current)\"",
      with: "public let contextSDKVersion = \"\(goldenSDKVersion)\""
    ).write(to: versionFile, atomically: true, encoding: .utf8)
    return template
  }

  private func goldenFiles(_ golden: URL) throws -> [String] {
    guard FileManager.default.fileExists(atPath: golden.path),
      let walker = FileManager.default.enumerator(atPath: golden.path)
    else {
      XCTFail("no golden files at \(golden.path): run `\(updateCommand)`")
      return []
    }
    var files: [String] = []
    while let path = walker.nextObject() as? String {
      if walker.fileAttributes?[.type] as? FileAttributeType == .typeRegular { files.append(path) }
    }
    return files.sorted()
  }

  private func firstDifference(expected: String, generated: String) -> String {
    let expectedLines = expected.components(separatedBy: "\n")
    let generatedLines = generated.components(separatedBy: "\n")
    for index in 0..<max(expectedLines.count, generatedLines.count) {
      let want = index < expectedLines.count ? expectedLines[index] : "<end of file>"
      let got = index < generatedLines.count ? generatedLines[index] : "<end of file>"
      if want != got {
        return "line \(index + 1): golden \(want.debugDescription), generated \(got.debugDescription)"
      }
    }
    return "bytes differ"
  }
}
