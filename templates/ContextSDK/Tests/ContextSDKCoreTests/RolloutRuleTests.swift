@testable import ContextSDKCore
import Foundation
import XCTest

/// The device rule. Expected buckets were computed outside the SDK, with Python:
/// `int.from_bytes(hashlib.sha256(f"{salt}:{install_id}".encode()).digest()[:4], "big") % 100`.
final class RolloutRuleTests: XCTestCase {
  func testTheBucketIsTheFirstFourBytesOfTheSaltedDigestModulo100() {
    XCTAssertEqual(RolloutRule.bucket(salt: "00112233445566778899aabbccddeeff", installID: "install-0"), 93)
    XCTAssertEqual(RolloutRule.bucket(salt: "00112233445566778899aabbccddeeff", installID: "install-1"), 1)
    XCTAssertEqual(
      RolloutRule.bucket(salt: "9fed81ea2a12da5fe1754ccad8bde4c8", installID: "A2C5E1B0-2E31-4A5C-9B54-5D5B0D3F6D77"),
      38)
    XCTAssertEqual(RolloutRule.bucket(salt: "salt", installID: ""), 89)
  }

  private let salt = "0123456789abcdef0123456789abcdef"
  // Under `salt`: device-51 is in bucket 0, device-42 in 9, device-268 in 10, device-242 in 99.

  private func model(_ version: Int, percent: Int = 10, status: ModelManifest.Status = .active, minimum: String = "1.0.0", spec: Int = 4)
    -> ModelManifest.Model
  {
    ModelManifest.Model(
      modelVersion: version, url: "https://cdn.example/\(version)", sha256: String(repeating: "a", count: 64),
      size: 10, minimumSDKVersion: minimum, inputs: ["x"], specificationVersion: spec, rolloutPercent: percent,
      salt: salt, status: status)
  }

  private func choose(_ models: [ModelManifest.Model], paused: Bool = false, device: String, sdk: String = "2.4.0")
    -> Int?
  {
    RolloutRule.choice(
      for: ModelManifest.Flow(flowId: 1, bundledVersion: 73, paused: paused, models: models), bundledVersion: 73,
      sdkVersion: sdk, maximumSpecificationVersion: 5, installID: device)?.modelVersion
  }

  func testTheDeviceTakesTheHighestEligibleVersionElseTheBundledModel() {
    // Bucket boundaries: bucket < percent takes it.
    XCTAssertEqual(choose([model(74, percent: 10)], device: "device-42"), 74)  // 9 < 10
    XCTAssertNil(choose([model(74, percent: 10)], device: "device-268"))  // 10 is not < 10
    XCTAssertNil(choose([model(74, percent: 0)], device: "device-51"))  // nobody at 0%
    XCTAssertEqual(choose([model(74, percent: 100)], device: "device-242"), 74)  // everybody at 100%
    // The highest eligible version wins; ineligible higher ones are passed over.
    XCTAssertEqual(choose([model(74, percent: 100), model(75, percent: 100)], device: "device-42"), 75)
    XCTAssertEqual(choose([model(74, percent: 100), model(75, percent: 5)], device: "device-268"), 74)
    XCTAssertEqual(choose([model(74, percent: 100), model(75, percent: 100, status: .retracted)], device: "device-42"), 74)
    XCTAssertEqual(choose([model(74, percent: 100), model(75, percent: 100, status: .paused)], device: "device-42"), 74)
    // Too new for this SDK, or for its Core ML: skipped.
    XCTAssertNil(choose([model(74, percent: 100, minimum: "2.5.0")], device: "device-42"))
    XCTAssertEqual(choose([model(74, percent: 100, minimum: "2.4.0")], device: "device-42"), 74)
    XCTAssertNil(choose([model(74, percent: 100, minimum: "nonsense")], device: "device-42"))
    XCTAssertNil(choose([model(74, percent: 100, spec: 9)], device: "device-42"))
    // Not above the bundled model.
    XCTAssertNil(choose([model(73, percent: 100), model(72, percent: 100)], device: "device-42"))
    // A paused flow offers nothing new.
    XCTAssertNil(choose([model(74, percent: 100)], paused: true, device: "device-42"))
  }
}
