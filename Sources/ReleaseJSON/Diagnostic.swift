import Foundation

/// One problem with an input, rendered as one line:
/// `customers.json: customers[3].customModels[0].modelVersion: onboarding_upsell v99 is not in the model store (have 72, 73, 74)`.
/// Validation collects every diagnostic of a run instead of stopping at the first.
public struct Diagnostic: Error, CustomStringConvertible, Equatable, Hashable, Sendable {
  /// The file as the user named it (`customers.json`, `models/paywall_timing/14.mlmodel`).
  public var file: String
  /// JSON path inside the file (`customers[3].app_id`), or `line 4, column 7` for syntax errors,
  /// or empty when the whole file is meant.
  public var path: String
  public var message: String
  /// 1-based line in `file` when known; carried for CI annotations (`::error file=…,line=…`).
  public var line: Int?

  public init(file: String, path: String, message: String, line: Int? = nil) {
    self.file = file
    self.path = path
    self.message = message
    self.line = line
  }

  public var description: String {
    path.isEmpty ? "\(file): \(message)" : "\(file): \(path): \(message)"
  }
}

/// All diagnostics of one validation run; thrown when there is at least one.
public struct ValidationFailure: Error, CustomStringConvertible, Equatable, Sendable {
  public var diagnostics: [Diagnostic]

  public init(_ diagnostics: [Diagnostic]) { self.diagnostics = diagnostics }

  public var description: String { diagnostics.map(\.description).joined(separator: "\n") }
}
