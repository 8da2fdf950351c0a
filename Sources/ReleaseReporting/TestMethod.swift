/// How a customer's package was tested: by `swift test` (built and tested by SwiftPM), or by
/// running the test binary already built for its compile key against its own resource bundle.
/// Shown in the run's output and report; never in `release.json`, which is the same whichever
/// customer of a key came first.
package enum TestMethod: Sendable, Equatable, CustomStringConvertible {
  case swiftTest
  /// The first 12 hex digits of the compile key.
  case testBinary(compileKey: String)

  package var description: String {
    switch self {
    case .swiftTest: "swift test"
    case .testBinary(let key): "test binary of compile key \(key)"
    }
  }
}
