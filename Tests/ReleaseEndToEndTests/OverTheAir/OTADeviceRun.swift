import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// One run of `Scripts/ota-devices acme --list` (the SDK's real updater as `count` devices,
/// each keeping its state in the workspace's `ota-devices/devices`) against the workspace's
/// release and published channel, read from its per-device lines.
struct OTADeviceRun {
  /// Every `install-…` line: a device's model, or its refusal on a line of its own.
  let lines: [String]
  /// Devices that resolve onboarding_upsell to v74.
  let onV74: Int
  /// Devices whose update was refused (the manifest or a root).
  let refused: Int
  let exitCode: Int32
  let standardError: String

  /// The run; every device's model must be listed, refused or not.
  init(
    _ workspace: Workspace, devices count: Int, probeWork: URL, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        RepositoryRoot.url.appendingPathComponent("Scripts/ota-devices").path,
        [
          "acme", "--devices", String(count), "--list", "--work", probeWork.path, "--downloads",
          workspace.file("ota-devices/devices").path,
        ], in: workspace.root, timeLimit: 900))
    lines = result.standardOutput.split(separator: "\n").map(String.init).filter { $0.hasPrefix("install-") }
    let fields = lines.map { $0.split(separator: " ").map(String.init) }
    let resolved = fields.filter { $0.count == 4 && $0[1] == "onboarding_upsell" }
    XCTAssertEqual(
      resolved.count, count, "every device's model is listed, refused or not", file: file, line: line)
    onV74 = resolved.filter { $0[2] == "74" }.count
    refused = fields.filter { $0.count > 1 && $0[1] == "error" }.count
    exitCode = result.exitCode
    standardError = result.standardError
  }
}
