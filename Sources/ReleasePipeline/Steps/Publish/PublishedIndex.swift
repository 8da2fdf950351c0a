import Foundation
import ReleaseGeneration

/// `customers/<id>/index.json` in a publish destination: every published version of one
/// customer's package, newest last, with what a client needs to fetch and check it.
package struct CustomerIndex: Codable, Equatable {
  package struct Version: Codable, Equatable {
    struct Model: Codable, Equatable {
      var flowId: Int
      var flowName: String
      var modelVersion: Int
      var sha256: String
      /// The model's input features and the oldest SDK version that computes them all
      /// (absent in entries published before tool 0.3.0).
      var inputs: [String]?
      var minimumSDKVersion: String?
    }
    package var version: String
    var sdkVersion: String
    /// The oldest SDK version this package's models are supported by (the SDK it embeds).
    var minimumSDKVersion: String
    package var url: String
    var sha256: String
    var size: Int64
    var models: [Model]
    /// How this version differs from the customer's previous one (absent before tool 0.4.0).
    var releaseNotes: ReleaseNote?
  }

  var id: String
  var name: String?
  var packageName: String
  var latest: String
  package var versions: [Version]
}

/// `index.json` at the top of a publish destination: every customer's latest version.
/// Written last, so it never names a version whose files are not all in place.
struct TopLevelIndex: Codable, Equatable {
  struct Entry: Codable, Equatable {
    var id: String
    var latest: String
    var index: String
  }
  var customers: [Entry]
}
