import Foundation
import ReleaseJSON
import ReleaseModels

/// Reads `customers.json` into a validated `Manifest`.
///
/// Format: a top-level array of
/// `{"bundle_identifiers": [String], "app_id": "<uuid>", "customModels": [{"flowId": Int,
/// "flowName": String, "modelVersion": Int}], "id": "<slug>" (optional), "name": String (optional),
/// "features": [String] (optional: the features of `features.json` the customer licenses)}`.
/// An entry without `id` gets `Customer.derivedID(name:appID:)`.
public enum ManifestLoader {
  /// Parses and validates `data`. Throws `ValidationFailure` holding every problem of the file in
  /// document order (a syntax error is one diagnostic: nothing after it can be trusted), or the
  /// store's own error when the store cannot be read.
  /// - Parameter displayPath: the file as the user named it; every diagnostic starts with it.
  /// - Parameter features: the template's feature catalog, against which `features` lists and
  ///   flows are checked; nil checks a `features` list only for its form.
  public static func load(
    path displayPath: String, data: Data, store: ModelStore, features: FeatureCatalog? = nil
  )
    throws -> Manifest
  {
    let root = try JSONDocument.parse(data, file: displayPath)
    let customers = try ManifestValidator.customers(
      of: root, file: displayPath, store: store, catalog: features)
    return Manifest(path: displayPath, customers: customers)
  }

  /// Reads the file at `url`, then loads it as `load(path:data:store:)` does. A file that cannot
  /// be read is reported as a `ValidationFailure` too, so callers print one kind of error.
  /// - Parameter displayPath: how messages name the file; defaults to `url.path`.
  public static func load(
    contentsOf url: URL, displayPath: String? = nil, store: ModelStore, features: FeatureCatalog? = nil
  ) throws -> Manifest {
    let displayPath = displayPath ?? url.path
    let data: Data
    do {
      data = try Data(contentsOf: url)
    } catch {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "", message: "cannot read the file: \(readFailureReason(url, error))")
      ])
    }
    return try load(path: displayPath, data: data, store: store, features: features)
  }

  /// The operating system's reason (`No such file or directory`) rather than Foundation's
  /// platform-dependent sentence.
  private static func readFailureReason(_ url: URL, _ error: Error) -> String {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue {
      return "it is a directory"
    }
    let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
    if let underlying, underlying.domain == NSPOSIXErrorDomain {
      return String(cString: strerror(Int32(underlying.code)))
    }
    // Foundation on Linux reports these without the underlying POSIX error.
    switch (error as? CocoaError)?.code {
    case .fileReadNoSuchFile?: return String(cString: strerror(ENOENT))
    case .fileReadNoPermission?: return String(cString: strerror(EACCES))
    default: return error.localizedDescription
    }
  }
}
