import Foundation
import ReleaseSystem

/// A model in the store: `models/<flowName>/<version>.mlmodel`.
public struct ModelReference: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var flowName: String
  public var version: Int

  public init(flowName: String, version: Int) {
    self.flowName = flowName
    self.version = version
  }

  /// Path relative to the store root.
  public var relativePath: String { "\(flowName)/\(version).mlmodel" }
  public var description: String { "\(flowName) v\(version)" }

  public static func < (a: Self, b: Self) -> Bool {
    (a.flowName, a.version) < (b.flowName, b.version)
  }
}

/// Where models come from. The directory store is the default (`models/` in the repo);
/// a URL store (downloaded into a content-addressed cache) conforms too.
public protocol ModelStore: Sendable {
  /// Human-readable location for messages (`models`, `https://…`).
  var displayName: String { get }
  /// Every flow name the store holds, sorted.
  func flowNames() throws -> [String]
  /// The versions the store holds for a flow, ascending; empty when the flow is unknown.
  func versions(of flowName: String) throws -> [Int]
  /// A local file holding the model's bytes (downloaded first if the store is remote).
  func localFile(for reference: ModelReference) throws -> URL
  /// The SHA-256 of the model's bytes. A remote store answers from its index without
  /// downloading anything; by default the local file is hashed.
  func sha256(of reference: ModelReference) throws -> String
}

extension ModelStore {
  public func sha256(of reference: ModelReference) throws -> String {
    try SHA256Digest.hex(ofFileAt: try localFile(for: reference))
  }
}
