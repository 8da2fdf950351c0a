import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `ota root`'s steps built directly: signing refuses keys and thresholds a device would, and
/// writing never replaces a committed root.
final class RootStepsTests: XCTestCase {
  let directory = try! TemporaryDirectory()
  let output = CapturedOutput()

  var context: ReleaseContext {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: directory.url, environment: [:],
      output: output)
    return ReleaseContext(services: services, settings: RunSettings(), reporter: RecordingReporter())
  }

  /// Where `init` writes in this project: ota-root/, with no chain yet.
  func settings() throws -> RootSettings {
    try SettingsResolution(CommandLineSettings(), services: context.services).root()
  }

  /// The first root: `keys` as root keys at `threshold`, one manifest key.
  func firstRoot(_ keys: [SigningKey], threshold: Int) throws -> ChannelRoot {
    ChannelRoot(
      version: 1, root: .init(keys: keys.map(\.publicKey), threshold: threshold),
      manifest: .init(keys: [try SigningKey.generate().publicKey], threshold: 1))
  }

  func testASignerThatIsNoRootKeyIsRefused() throws {
    let rootKey = try SigningKey.generate()
    let stranger = try SigningKey.generate()
    let change = RootChange(
      settings: try settings(), root: try firstRoot([rootKey], threshold: 1),
      signers: [stranger])
    XCTAssertThrowsError(try SignRootStep().run(change, context)) { error in
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 2)
      XCTAssertTrue("\(error)".contains("key \(stranger.keyID) is not a root key"), "\(error)")
    }
  }

  func testFewerSignaturesThanTheThresholdAreRefused() throws {
    let keys = [try SigningKey.generate(), try SigningKey.generate()]
    let change = RootChange(
      settings: try settings(), root: try firstRoot(keys, threshold: 2), signers: [keys[0]])
    XCTAssertThrowsError(try SignRootStep().run(change, context)) { error in
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 2, "\(error)")
    }
    let both = RootChange(
      settings: try settings(), root: change.root, signers: keys)
    let signed = try SignRootStep().run(both, context)
    XCTAssertEqual(signed.file, "ota-root/1.json")
    XCTAssertEqual(try ChannelRoot.open(signed.envelope, after: nil, location: signed.file), change.root)
  }

  func testACommittedRootIsNeverReplaced() throws {
    let key = try SigningKey.generate()
    let root = try firstRoot([key], threshold: 1)
    // Both runs read the directory before either wrote: the second finds 1.json written since.
    let empty = try settings()
    let signed = try SignRootStep().run(RootChange(settings: empty, root: root, signers: [key]), context)
    try WriteRootStep().run(signed, context)
    let file = directory.url.appendingPathComponent("ota-root/1.json")
    XCTAssertEqual(try Data(contentsOf: file), signed.envelope)
    XCTAssertEqual(output.standardOutput.first, "wrote ota-root/1.json; commit it")

    let other = try SignRootStep().run(
      RootChange(settings: empty, root: try firstRoot([key], threshold: 1), signers: [key]),
      context)
    XCTAssertThrowsError(try WriteRootStep().run(other, context)) { error in
      XCTAssertEqual(
        (error as? ReleaseError)?.lines, ["ota-root/1.json: exists; root documents are never overwritten"])
    }
    XCTAssertEqual(try Data(contentsOf: file), signed.envelope, "the committed root is kept")
  }
}
