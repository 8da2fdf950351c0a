import Foundation

/// Keys for S3-compatible storage, read from the standard AWS environment variables.
/// The secret and session token are readable only inside this module and never printed:
/// `description`, `debugDescription` and the reflection mirror (used by `dump`) redact them.
public struct S3Credentials: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  /// Not a secret (AWS shows it in logs and consoles); printed to tell keys apart.
  public let accessKeyID: String
  let secretAccessKey: String
  let sessionToken: String?

  /// Whether these are temporary credentials (a session token, itself never shown).
  public var hasSessionToken: Bool { sessionToken?.isEmpty == false }

  public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
    self.accessKeyID = accessKeyID
    self.secretAccessKey = secretAccessKey
    self.sessionToken = sessionToken
  }

  /// `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY` and, for temporary credentials,
  /// `AWS_SESSION_TOKEN`. Empty values count as missing.
  public static func fromEnvironment(
    _ environment: [String: String] = ProcessInfo.processInfo.environment
  ) throws -> S3Credentials {
    func required(_ name: String) throws -> String {
      guard let value = environment[name], !value.isEmpty else {
        throw NetworkError.missingEnvironmentVariable(name: name)
      }
      return value
    }
    let sessionToken = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
    return S3Credentials(
      accessKeyID: try required("AWS_ACCESS_KEY_ID"), secretAccessKey: try required("AWS_SECRET_ACCESS_KEY"),
      sessionToken: sessionToken)
  }

  /// The region the environment names, and the variable that names it (for messages):
  /// `AWS_REGION`, else `AWS_DEFAULT_REGION` (the CLI's older name), else nil.
  public static func region(
    fromEnvironment environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> (region: String, variable: String)? {
    for name in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
      if let value = environment[name], !value.isEmpty { return (value, name) }
    }
    return nil
  }

  public var description: String {
    "S3Credentials(accessKeyID: \(accessKeyID), secretAccessKey: <redacted>"
      + (sessionToken == nil ? ")" : ", sessionToken: <redacted>)")
  }

  public var debugDescription: String { description }

  public var customMirror: Mirror {
    Mirror(
      self,
      children: [
        "accessKeyID": accessKeyID, "secretAccessKey": "<redacted>",
        "sessionToken": sessionToken == nil ? "nil" : "<redacted>",
      ])
  }
}
