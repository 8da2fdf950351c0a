import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem
import XCTest

/// The fixture customer and paths shared by the generation tests.
enum GenerationFixtures {
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let templateDirectory = repositoryRoot.appendingPathComponent(
    "templates/ContextSDK", isDirectory: true)
  static let fixtureDirectory = repositoryRoot.appendingPathComponent(
    "Tests/Fixtures/Generation", isDirectory: true)
  /// `Golden/<feature set>/`: one tree per feature set (see GoldenTests).
  static let goldenDirectory = fixtureDirectory.appendingPathComponent("Golden", isDirectory: true)
  /// Minimal Core ML protobufs (specificationVersion 4, a description with the inputs below),
  /// laid out like the model store: `<flowName>/<modelVersion>.mlmodel`.
  static let modelsDirectory = fixtureDirectory.appendingPathComponent("Models", isDirectory: true)

  /// A name with Markdown and quote characters, to show escaping in the golden README.
  static let customer = Customer(
    id: "fixture-co", name: "Fixture \"Quoted\" & <Co> *Ltd*",
    appID: "6e1d2c3b-4a59-4876-9a0b-1c2d3e4f5a6b",
    bundleIdentifiers: ["com.example.fixture", "com.example.fixture.widget"],
    customModels: [
      CustomModel(flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73),
      CustomModel(flowId: 8363, flowName: "paywall_timing", modelVersion: 14),
    ],
    index: 0, line: 1)

  /// A second customer sharing no model with the first, for rebuilding a warmed package.
  static let otherCustomer = Customer(
    id: "other-co", name: "Other Co", appID: "0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
    bundleIdentifiers: ["org.example.other"],
    customModels: [CustomModel(flowId: 8365, flowName: "rating_request", modelVersion: 31)],
    index: 1, line: 12)

  /// A customer of the App Tracking Transparency feature only.
  static let attCustomer = Customer(
    id: "att-co", name: "ATT Co", appID: "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
    bundleIdentifiers: ["com.example.att"],
    customModels: [CustomModel(flowId: 8364, flowName: "tracking_permission", modelVersion: 5)],
    features: ["att"], index: 2, line: 20)

  /// The fixture customer with the tracking permission model too, listing both features.
  static let bothFeaturesCustomer: Customer = {
    var both = customer
    both.customModels.append(CustomModel(flowId: 8364, flowName: "tracking_permission", modelVersion: 5))
    both.features = ["att", "conversion"]
    return both
  }()

  static let inputNames: [String: [String]] = [
    "onboarding_upsell": ["session_count", "days_since_install"],
    "paywall_timing": ["screens_viewed"],
    "rating_request": ["tasks_completed"],
    "tracking_permission": ["app_launches"],
  ]

  static func embeddedModel(_ model: CustomModel) throws -> EmbeddedModel {
    let file = modelsDirectory.appendingPathComponent(model.reference.relativePath)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    return EmbeddedModel(
      model: model, sourceFile: file, sha256: sha256, size: size,
      inputNames: inputNames[model.flowName] ?? [], specificationVersion: 4)
  }

  static func input(for customer: Customer = customer) throws -> GenerationInput {
    GenerationInput(
      customer: customer, version: "3.1.0",
      sdkVersion: try PackageGenerator.templateSDKVersion(templateDirectory),
      models: try customer.customModels.map(embeddedModel),
      repositoryURL: "https://git.example.com/contextsdk/releases-\(customer.id).git",
      modelManifestURL: "https://sdk.example.com/contextsdk/ota/\(customer.id)/models.json",
      trustedKeys: [trustedKey],
      manifestURL: "https://sdk.example.com/contextsdk/ota/0123456789abcdef0123456789abcdef/manifest.json",
      signals: try templateSignals(), releaseNotes: releaseNotes)
  }

  /// RFC 8032's first test key, as a package pins it.
  static let trustedKey = PinnedKey(
    keyID: "21fe31dfa154a261626bf854046fd2271b7bed4b6abe45aa58877ef47f9721b9",
    publicKey: "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=")

  /// RFC 8032's first and second test keys (raw, base64): the keys a signed release's README
  /// names by their fingerprints.
  static let signingKeys = [
    "11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=", "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=",
  ]

  /// The fingerprint `ssh-keygen -l -f` prints for a raw Ed25519 key (standard base64), written
  /// in OpenSSH's public key form by hand (`string("ssh-ed25519") || string(key)`): computed by
  /// OpenSSH, not by the tool.
  static func sshKeygenFingerprint(ofRawKey base64: String) throws -> String {
    let raw = try XCTUnwrap(Data(base64Encoded: base64))
    XCTAssertEqual(raw.count, 32)
    func sshString(_ bytes: Data) -> Data {
      withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { Data($0) } + bytes
    }
    let blob = sshString(Data("ssh-ed25519".utf8)) + sshString(raw)
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("ReleaseGenerationTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let file = directory.appendingPathComponent("key.pub")
    try Data("ssh-ed25519 \(blob.base64EncodedString())\n".utf8).write(to: file)
    let result = try SystemProcessRunner().run(
      ProcessInvocation("ssh-keygen", ["-l", "-f", file.path], in: directory))
    XCTAssertEqual(result.exitCode, 0, result.standardError)
    // "256 SHA256:<fingerprint> no comment (ED25519)"
    let fields = result.standardOutput.split(separator: " ")
    return try XCTUnwrap(
      fields.count >= 2 && fields[1].hasPrefix("SHA256:") ? String(fields[1]) : nil,
      "ssh-keygen -l printed \(result.standardOutput.debugDescription)")
  }

  /// Two releases of the fixture customer: the first, then a model change, a removed and an
  /// added model, new bundle identifiers and a new SDK version whose changelog item and model
  /// description carry Markdown, a link and a bidi override (escaped in the golden CHANGELOG.md).
  static let releaseNotes: [ReleaseNote] = {
    let first = ReleaseContents(
      version: "3.0.0", previousVersion: nil, sdkVersion: "2.9.0", bundleIdentifiers: ["com.example.fixture"],
      models: [
        "onboarding_upsell": .init(flowId: 8362, modelVersion: 72, sha256: "aa", shortDescription: "Upsell"),
        "rating_request": .init(flowId: 8365, modelVersion: 30, sha256: "bb", shortDescription: ""),
      ])
    let second = ReleaseContents(
      version: "3.1.0", previousVersion: "3.0.0", sdkVersion: "3.0.0",
      bundleIdentifiers: ["com.example.fixture", "com.example.fixture.widget"],
      models: [
        "onboarding_upsell": .init(
          flowId: 8362, modelVersion: 73, sha256: "cc",
          shortDescription: "Shows the *upsell* [now](https://evil.example) \u{202E}txt.exe"),
        "paywall_timing": .init(
          flowId: 8363, modelVersion: 14, sha256: "dd", shortDescription: "Paywall <b>"),
      ])
    let changelog = ["3.0.0": ["Faster `resolveModel`", "# not a heading"]]
    return [
      ReleaseNotes.note(for: second, previous: .recorded(first), sdkChangelog: changelog),
      ReleaseNotes.note(for: first, previous: .none, sdkChangelog: changelog),
    ]
  }()

  /// `signals.json` of the template, read as plain JSON (the tool's own reader is ReleaseKit's).
  static func templateSignals() throws -> [String: String] {
    let data = try Data(contentsOf: templateDirectory.appendingPathComponent("signals.json"))
    let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
    return try XCTUnwrap(object?["signals"] as? [String: String])
  }

  /// A fresh directory under the system's temporary directory, removed by `XCTestCase.addTeardownBlock`.
  static func temporaryDirectory(_ testCase: XCTestCase, keepOnFailure: Bool = false) throws -> URL {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("ReleaseGenerationTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    testCase.addTeardownBlock { [weak testCase] in
      let failed = (testCase?.testRun?.failureCount ?? 0) > 0
      if !(keepOnFailure && failed) { try? FileManager.default.removeItem(at: directory) }
    }
    return directory
  }
}
