import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// `templates/ContextSDK/signals.json`: the signals (model input features) the SDK computes,
/// each with the SDK version that introduced it:
/// `{"signals": {"session_count": "1.0.0", "battery_level": "2.5.0", …}}`.
///
/// A model can run on SDK version V only if every one of its inputs is a signal introduced at
/// or before V: an older SDK cannot compute a newer signal, and a model fed a missing input
/// makes wrong decisions on the device. So the catalog is what every model is checked against
/// before anything is built or rolled out.
public struct SignalCatalog: Equatable, Sendable {
  public static let fileName = "signals.json"

  /// Signal name → the SDK version that introduced it.
  public var introduced: [String: SemanticVersion]

  public init(introduced: [String: SemanticVersion]) { self.introduced = introduced }

  /// Reads and checks the catalog; every problem is reported, each naming its JSON path.
  /// - Parameter displayPath: how messages name the file (`templates/ContextSDK/signals.json`).
  public static func load(contentsOf url: URL, displayPath: String) throws -> SignalCatalog {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "",
          message:
            "cannot read the file (\(SystemError.reason(error))); expected the signals the SDK computes")
      ])
    }
    return try load(data: data, displayPath: displayPath)
  }

  /// The catalog of a template read once per run (its `signals.json`), so every check of the
  /// run sees the bytes the packages are generated from.
  /// - Parameter templatesPath: how messages name the template directory.
  public static func load(from template: PackageTemplate, templatesPath: String) throws -> SignalCatalog {
    let displayPath = templatesPath + "/" + fileName
    guard let data = template.files.first(where: { $0.path == fileName })?.bytes else {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "",
          message: "missing from the template; expected the signals the SDK computes")
      ])
    }
    return try load(data: data, displayPath: displayPath)
  }

  static func load(data: Data, displayPath: String) throws -> SignalCatalog {
    func failure(_ path: String, _ message: String, line: Int? = nil) -> ValidationFailure {
      ValidationFailure([Diagnostic(file: displayPath, path: path, message: message, line: line)])
    }
    let root = try JSONDocument.parse(data, file: displayPath)
    guard case .object(let members) = root.content else {
      throw failure(
        "", "expected an object {\"signals\": {…}}, found \(root.foundDescription)", line: root.position.line)
    }
    var problems: [Diagnostic] = []
    var signalsValue: JSONValue?
    for member in members {
      if member.key == "signals" {
        signalsValue = member.value
      } else {
        problems.append(
          Diagnostic(
            file: displayPath, path: member.key, message: "unknown key; expected only \"signals\"",
            line: member.keyPosition.line))
      }
    }
    guard let signalsValue else {
      throw ValidationFailure(
        problems + [Diagnostic(file: displayPath, path: "signals", message: "missing; expected an object")])
    }
    guard case .object(let signals) = signalsValue.content else {
      throw ValidationFailure(
        problems + [
          Diagnostic(
            file: displayPath, path: "signals",
            message:
              "expected an object of signal name to SDK version, found \(signalsValue.foundDescription)",
            line: signalsValue.position.line)
        ])
    }
    var introduced: [String: SemanticVersion] = [:]
    for member in signals {
      let path = "signals.\(member.key)"
      guard isSignalName(member.key) else {
        problems.append(
          Diagnostic(
            file: displayPath, path: path,
            message: "not a signal name; expected lower-case letters, digits and '_', starting with a letter",
            line: member.keyPosition.line))
        continue
      }
      guard case .string(let text) = member.value.content, let version = SemanticVersion(text) else {
        problems.append(
          Diagnostic(
            file: displayPath, path: path,
            message:
              "expected the SDK version that introduced it (\"major.minor.patch\"), found \(member.value.foundDescription)",
            line: member.value.position.line))
        continue
      }
      introduced[member.key] = version
    }
    if signals.isEmpty {
      problems.append(
        Diagnostic(
          file: displayPath, path: "signals", message: "expected at least one signal, found none",
          line: signalsValue.position.line))
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return SignalCatalog(introduced: introduced)
  }

  /// Signal names become Swift string literals and dictionary keys on devices: keep them plain.
  static func isSignalName(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, ("a"..."z").contains(first), name.count <= 64 else {
      return false
    }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_"
    }
  }

}
