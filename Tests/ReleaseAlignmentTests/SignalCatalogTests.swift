import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseTestSupport
import XCTest

@testable import ReleaseAlignment

/// `signals.json`: the template's catalog covers every input of every model in the store, and a
/// broken catalog is refused with one line per problem, each naming its JSON path.
final class SignalCatalogTests: XCTestCase {
  private let templateCatalog = RepositoryRoot.url.appendingPathComponent("templates/ContextSDK/signals.json")

  func testTheTemplateDeclaresEveryInputOfEveryStoreModel() throws {
    let catalog = try SignalCatalog.load(contentsOf: templateCatalog, displayPath: "signals.json")
    // The inputs as coremltools read them back when it made the store (models/index.json),
    // independent of the tool's own Core ML reader.
    let index = try XCTUnwrap(
      JSONSerialization.jsonObject(
        with: Data(contentsOf: RepositoryRoot.url.appendingPathComponent("models/index.json")))
        as? [String: Any])
    let models = try XCTUnwrap(index["models"] as? [[String: Any]])
    XCTAssertFalse(models.isEmpty)
    for model in models {
      for input in try XCTUnwrap(model["inputs"] as? [String]) {
        XCTAssertNotNil(
          catalog.introduced[input], "\(model["path"] ?? "?"): input \(input) is not in signals.json")
      }
    }
  }

  func testBrokenCatalogsAreRefusedWithEveryProblemNamed() throws {
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("signals.json")
    let cases: [(String, [String])] = [
      ("[]", ["signals.json: expected an object {\"signals\": {…}}, found an empty array"]),
      ("{}", ["signals.json: signals: missing; expected an object"]),
      (
        #"{"signals": {"a": "1.0.0"}, "extra": 1}"#,
        ["signals.json: extra: unknown key; expected only \"signals\""]
      ),
      (
        #"{"signals": {"Session": "1.0.0", "hour": "2.2", "ok_1": "1.0.0", "n": 3}}"#,
        [
          "signals.json: signals.Session: not a signal name; expected lower-case letters, digits and '_', starting with a letter",
          "signals.json: signals.hour: expected the SDK version that introduced it (\"major.minor.patch\"), found string \"2.2\"",
          "signals.json: signals.n: expected the SDK version that introduced it (\"major.minor.patch\"), found integer 3",
        ]
      ),
      (#"{"signals": {}}"#, ["signals.json: signals: expected at least one signal, found none"]),
      ("{\"signals\": ", ["signals.json: line 1, column 13: expected a value, found end of file"]),
    ]
    for (text, expected) in cases {
      try Data(text.utf8).write(to: file)
      XCTAssertThrowsError(try SignalCatalog.load(contentsOf: file, displayPath: "signals.json"), text) {
        error in
        XCTAssertEqual((error as? ValidationFailure)?.diagnostics.map(\.description), expected, text)
      }
    }
    XCTAssertThrowsError(
      try SignalCatalog.load(
        contentsOf: directory.url.appendingPathComponent("absent.json"), displayPath: "x.json")
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "x.json: cannot read the file (No such file or directory); expected the signals the SDK computes")
    }
  }
}
