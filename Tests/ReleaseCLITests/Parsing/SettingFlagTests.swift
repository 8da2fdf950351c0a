import ReleaseSettings
import XCTest

@testable import ReleaseCLI

/// The flags the settings phase names in its messages are options of the command table.
final class SettingFlagTests: XCTestCase {
  func testEveryFlagTheResolutionNamesIsDeclared() {
    let declared = Set(
      Command.all.flatMap { $0.subcommands.isEmpty ? [$0] : $0.subcommands }.flatMap(\.options).map(\.name))
    for flag in SettingFlag.allCases {
      XCTAssertTrue(declared.contains(flag.rawValue), "\(flag.rawValue) is no option of the command table")
    }
  }
}
