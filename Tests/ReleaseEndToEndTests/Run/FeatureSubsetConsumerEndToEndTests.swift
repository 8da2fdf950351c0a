import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// Issue 13, as an app of an `att`-only customer sees its package: the ATT API builds and runs,
/// and the conversion API does not exist (calling it does not compile, its module cannot be
/// imported). The release is made without compiling (`runWithoutCompiling`): its archive is
/// the generated package either way, and `FeatureSubsetEndToEndTests` builds and tests it; the
/// consumer's builds here are real. Apart from that class, whose builds share the test
/// process's warm slots (`Tests/warm-slot-classes`), since these compile in a package of their
/// own.
final class FeatureSubsetConsumerEndToEndTests: XCTestCase {
  func testAnAppCallsTheATTAPIAndCannotCallTheConversionAPI() throws {
    let workspace = try Workspace(manifest: FeatureSubsetEndToEndTests.manifest)
    let run = try workspace.runWithoutCompiling(["customer", "harbor", "--jobs", "1"])
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    let release = workspace.dist.appendingPathComponent("harbor/\(Workspace.sdkVersion())")
    let record = try ReleaseRecord.load(from: release.appendingPathComponent(ReleaseRecord.fileName))
    let zip = release.appendingPathComponent(record.artifact.file)

    // An app of the customer's: the ATT API builds and runs.
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent(
      "features-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let package = try ZipReader.extract(zip, into: scratch.appendingPathComponent("sdk"))
    let consumer = scratch.appendingPathComponent("Consumer")
    try ConsumerPackage.generate(
      sdkPackage: package, sdkPackageName: "ContextSDK_Harbor", flows: [],
      allowedBundleIdentifier: "com.harborbank.mobile", into: consumer)
    let main = consumer.appendingPathComponent("Sources/Consumer/main.swift")
    try """
    import ContextSDK
    import Foundation

    let downloads = FileManager.default.temporaryDirectory.appendingPathComponent("att-\\(UUID().uuidString)")
    guard let model = ContextSDK.trackingPermissionModel(downloadsDirectory: downloads), model.source == .bundled
    else { fatalError("no tracking permission model") }
    print("ok tracking_permission v\\(model.modelVersion) features \\(ContextSDK.configuration.features)")

    """.write(to: main, atomically: true, encoding: .utf8)
    let built = try swift(["build"], in: consumer, log: scratch.appendingPathComponent("att.log"))
    XCTAssertEqual(built.exitCode, 0, built.output)
    let ran = try SystemProcessRunner().run(
      ProcessInvocation(consumer.appendingPathComponent(".build/debug/Consumer").path, [], in: consumer))
    XCTAssertEqual(ran.exitCode, 0, ran.standardOutput + ran.standardError)
    XCTAssertEqual(ran.standardOutput, "ok tracking_permission v5 features [\"att\"]\n")

    // The conversion API does not exist in this package: calling it is a compile error, and
    // its module cannot even be imported.
    try """
    import ContextSDK
    import Foundation

    let moment: ConversionMoment = .paywallTiming
    print(ContextSDK.conversionMoments)

    """.write(to: main, atomically: true, encoding: .utf8)
    let calling = try swift(["build"], in: consumer, log: scratch.appendingPathComponent("conversion.log"))
    XCTAssertNotEqual(calling.exitCode, 0, calling.output)
    XCTAssertTrue(
      calling.output.contains("error: cannot find type 'ConversionMoment' in scope"), calling.output)
    XCTAssertTrue(
      calling.output.contains("error: type 'ContextSDK' has no member 'conversionMoments'"), calling.output)

    try "import ContextSDKConversion\n".write(to: main, atomically: true, encoding: .utf8)
    let importing = try swift(["build"], in: consumer, log: scratch.appendingPathComponent("import.log"))
    XCTAssertNotEqual(importing.exitCode, 0, importing.output)
    XCTAssertTrue(importing.output.contains("error: no such module 'ContextSDKConversion'"), importing.output)
  }

  private func swift(_ arguments: [String], in directory: URL, log: URL) throws -> (
    exitCode: Int32, output: String
  ) {
    let result = try SharedModuleCache.swift(arguments, in: directory, logFile: log)
    return (result.exitCode, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
  }
}
