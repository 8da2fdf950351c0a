import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseModels
import ReleaseNetwork
import ReleasePublishing
import ReleaseSettings

/// Opens the model store `--models` names: a directory (the default, `models`), an
/// `http(s)://` URL or an `s3://bucket/prefix` location, the last two through
/// `RemoteModelStore` with its cache under `--cache`.
package enum ModelStoreLocation {
  static func open(_ inputs: InputSettings, services: Services) throws -> ModelStore {
    let location = inputs.modelsPath
    guard InputSettings.isRemoteStore(location) else {
      return DirectoryModelStore(
        root: services.resolve(location), displayName: location, maximumModelSize: inputs.maximumModelSize)
    }
    let cache = services.resolve(inputs.cachePath).appendingPathComponent("models")
    let source: RemoteModelStore.Source
    var displayName = location
    while displayName.hasSuffix("/") { displayName.removeLast() }
    if location.lowercased().hasPrefix("s3://") {
      guard let (bucket, prefix) = S3Location.parse(displayName) else {
        throw ReleaseError.usage(
          "\(inputs.origins.models) \(location): expected s3://<bucket>[/<prefix>] with a bucket of 3-63 lower-case letters, digits, '-' or '.'"
        )
      }
      let client = try S3Settings.client(
        bucket: bucket, endpoint: inputs.s3Endpoint, region: inputs.s3Region,
        environment: services.environment,
        purpose: "\(inputs.origins.models) \(displayName)", origins: inputs.origins, http: services.http)
      source = .s3(client: client, prefix: prefix)
    } else {
      // Plain http to another machine was refused when the settings were resolved
      // (`URLPolicy.checkModelStore`).
      guard let base = InputSettings.storeBaseURL(displayName) else {
        throw ReleaseError.usage(
          "\(inputs.origins.models) \(location): expected an http(s) URL of a directory holding index.json")
      }
      source = .http(base: base, client: services.http)
    }
    do {
      return try RemoteModelStore(
        displayName: displayName, source: source, cacheDirectory: cache,
        maximumModelSize: inputs.maximumModelSize)
    } catch let error as RemoteModelStoreError {
      throw ReleaseError.invalidInputs(error.lines)
    }
  }
}
