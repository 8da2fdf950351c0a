import Foundation
import XCTest

/// A test of the device's updater: a server on 127.0.0.1 and its own downloads and state
/// directories, removed after each test.
class DeviceTestCase: XCTestCase {
  var server: LocalHTTPServer!
  var downloads: URL!
  /// Where the install id would be, with the highest revision accepted.
  var state: URL!

  override func setUpWithError() throws {
    server = try LocalHTTPServer()
    downloads = FileManager.default.temporaryDirectory.appendingPathComponent("ota-\(UUID().uuidString)")
    state = FileManager.default.temporaryDirectory.appendingPathComponent("ota-state-\(UUID().uuidString)")
  }

  override func tearDownWithError() throws {
    server.stop()
    try? FileManager.default.removeItem(at: downloads)
    try? FileManager.default.removeItem(at: state)
  }
}
