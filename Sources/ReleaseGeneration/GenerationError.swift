import Foundation

/// Why a package could not be generated. Each renders as one line naming the file, what was
/// found and what was expected.
public enum GenerationError: Error, CustomStringConvertible, Equatable {
  case invalidIdentifier(found: String)
  case malformedPlaceholder(file: String, line: Int, found: String)
  case unknownPlaceholder(file: String, line: Int, name: String, known: [String])
  case unusedValue(file: String, name: String)
  case unknownTemplate(file: String, known: [String])
  case templateNotText(file: String)
  case unsupportedTemplateEntry(file: String)
  case templateNotFound(directory: String)
  case sdkVersionLineMissing(file: String, found: Int)
  case sdkVersionMismatch(file: String, found: String, expected: String)
  case invalidPackageName(found: String)
  case noModels(customer: String)
  case noFeatures(customer: String)
  case flowWithoutFeature(customer: String, flowName: String, features: [String])
  case invalidFlowName(customer: String, found: String)
  case duplicateOutput(file: String)
  case modelChanged(file: String, found: String, expected: String)
  case unexpectedEntry(directory: String, found: String, expected: [String])

  public var description: String {
    switch self {
    case .invalidIdentifier(let found):
      return
        "Swift identifier: found \(quoted(found)), expected ASCII letters, digits and underscores, not starting with a digit"
    case .malformedPlaceholder(let file, let line, let found):
      return
        "\(file):\(line): malformed placeholder: found \(quoted(found)), expected {{name}} with a Swift identifier as name"
    case .unknownPlaceholder(let file, let line, let name, let known):
      return "\(file):\(line): unknown placeholder {{\(name)}}: expected one of \(list(known))"
    case .unusedValue(let file, let name):
      return
        "\(file): value \(quoted(name)) is never used: expected a {{\(name)}} placeholder in the template"
    case .unknownTemplate(let file, let known):
      return "\(file): template the generator has no values for: expected one of \(list(known))"
    case .templateNotText(let file):
      return "\(file): template is not UTF-8 text: expected UTF-8"
    case .unsupportedTemplateEntry(let file):
      return
        "\(file): neither a regular file nor a directory: expected only files and directories in the template"
    case .templateNotFound(let directory):
      return
        "\(directory): template directory not found: expected the SDK package template (templates/ContextSDK)"
    case .sdkVersionLineMissing(let file, let found):
      return
        "\(file): found \(found) lines declaring contextSDKVersion, expected exactly one line `public let contextSDKVersion = \"<version>\"`"
    case .sdkVersionMismatch(let file, let found, let expected):
      return
        "\(file): contextSDKVersion is \(quoted(found)), expected \(quoted(expected)) (the SDK version being released)"
    case .invalidPackageName(let found):
      return
        "package name: found \(quoted(found)), expected an ASCII Swift identifier such as ContextSDK_Acme"
    case .noModels(let customer):
      return
        "customer \(customer): found no models, expected at least one (a package without models has nothing to ship)"
    case .noFeatures(let customer):
      return "customer \(customer): found no features, expected at least one of features.json"
    case .flowWithoutFeature(let customer, let flowName, let features):
      return
        "customer \(customer): flow \(quoted(flowName)) is no flow of its features (\(features.joined(separator: ", "))), expected the feature that serves it"
    case .invalidFlowName(let customer, let found):
      return
        "customer \(customer): flow name \(quoted(found)) cannot name a model file: expected ASCII letters, digits, `_` and `-`"
    case .duplicateOutput(let file):
      return
        "\(file): generated twice: expected each output path once (template file and model, or two models, collide)"
    case .modelChanged(let file, let found, let expected):
      return
        "\(file): copied bytes have SHA-256 \(found), expected \(expected) as recorded for the model (the source file changed after it was checked)"
    case .unexpectedEntry(let directory, let found, let expected):
      return
        "\(directory): found \(quoted(found)), which generation would not write: expected only \(list(expected)) (refusing to overwrite a directory that is not a generated package)"
    }
  }

  private func quoted(_ text: String) -> String {
    // Debug description escapes quotes, newlines and control characters, keeping the message on one line.
    String(reflecting: text)
  }

  private func list(_ names: [String]) -> String {
    names.isEmpty ? "(none)" : names.joined(separator: ", ")
  }
}
