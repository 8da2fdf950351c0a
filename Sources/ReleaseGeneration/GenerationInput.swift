import Foundation
import ReleaseManifest

/// One model to embed, with the facts about its file that the customer's configuration records.
public struct EmbeddedModel: Equatable, Sendable {
  public var model: CustomModel
  /// The model's bytes, e.g. from `ModelStore.localFile(for:)`.
  public var sourceFile: URL
  /// Lower-case hex SHA-256 of `sourceFile`; the copy is checked against it.
  public var sha256: String
  public var size: Int64
  public var inputNames: [String]
  public var specificationVersion: Int

  public init(
    model: CustomModel, sourceFile: URL, sha256: String, size: Int64, inputNames: [String],
    specificationVersion: Int
  ) {
    self.model = model
    self.sourceFile = sourceFile
    self.sha256 = sha256
    self.size = size
    self.inputNames = inputNames
    self.specificationVersion = specificationVersion
  }

  /// File name inside the package's `Models` resource folder.
  public var resourceName: String { "\(model.flowName)_v\(model.modelVersion).mlmodel" }
}

/// Everything one customer's package is generated from.
public struct GenerationInput: Equatable, Sendable {
  public var customer: Customer
  /// The Swift package's name, `customer.packageName` unless set otherwise.
  public var packageName: String
  /// The customer's package version (the releases repo's tag), shown in the README.
  public var version: String
  /// The SDK version; must equal `contextSDKVersion` in the template.
  public var sdkVersion: String
  public var models: [EmbeddedModel]
  /// The git URL the customer adds the package from. `nil` leaves a placeholder in the
  /// README's snippet.
  public var repositoryURL: String?
  /// The customer's over-the-air manifest (`<public URL>/ota/<id>/models.json`); nil when the
  /// release has no public URL to publish it under.
  public var modelManifestURL: String?
  /// The public keys every manifest of the signed channel must be signed by one of (pinned in
  /// `customer.json`); nil: the package has no signed channel.
  public var trustedKeys: [PinnedKey]?
  /// The customer's signed manifest (`<public URL>/ota/<channel>/manifest.json`), followed only
  /// with `trustedKeys`; nil: none.
  public var manifestURL: String?
  /// The newest root document of the signed channel (its DSSE envelope's JSON), with
  /// `trustedKeys`; nil: the package trusts its pinned keys only.
  public var trustedRoot: String?
  /// How a customer checks the release zip's signature, for the README's section "Checking
  /// the signature"; nil (no trusted keys): the README has no such section.
  public var signatureCheck: SignatureCheck?
  /// The signals the SDK computes and since which version (the template's signals.json), for
  /// the SDK's own table `SDKSignals`.
  public var signals: [String: String]
  /// The notes of this release and of every earlier one, newest first: the package's
  /// `CHANGELOG.md`.
  public var releaseNotes: [ReleaseNote]

  public init(
    customer: Customer, version: String, sdkVersion: String, models: [EmbeddedModel],
    repositoryURL: String? = nil, modelManifestURL: String? = nil, trustedKeys: [PinnedKey]? = nil,
    manifestURL: String? = nil, signatureCheck: SignatureCheck? = nil, trustedRoot: String? = nil,
    signals: [String: String] = [:],
    releaseNotes: [ReleaseNote] = []
  ) {
    self.customer = customer
    self.packageName = customer.packageName
    self.version = version
    self.sdkVersion = sdkVersion
    self.models = models
    self.repositoryURL = repositoryURL
    self.modelManifestURL = modelManifestURL
    self.trustedKeys = trustedKeys
    self.manifestURL = manifestURL
    self.trustedRoot = trustedRoot
    self.signatureCheck = signatureCheck
    self.signals = signals
    self.releaseNotes = releaseNotes
  }
}

/// What `PackageGenerator.generate` wrote.
public struct GeneratedPackage: Equatable, Sendable {
  public var directory: URL
  /// Every file of the package, relative to `directory`, sorted.
  public var files: [String]

  public init(directory: URL, files: [String]) {
    self.directory = directory
    self.files = files
  }
}

/// A public key a package trusts, as its `customer.json` pins it.
public struct PinnedKey: Equatable, Sendable, Codable {
  /// Lower-case hex SHA-256 of the raw 32-byte Ed25519 key.
  public var keyID: String
  /// Standard base64 (with padding) of the raw 32-byte key.
  public var publicKey: String

  public init(keyID: String, publicKey: String) {
    self.keyID = keyID
    self.publicKey = publicKey
  }
}

/// What a customer needs to check a release zip's OpenSSH signature (`<zip>.sig`) with
/// `ssh-keygen -Y verify`: shown in the package's README.
public struct SignatureCheck: Equatable, Sendable, Codable {
  /// Each trusted key's fingerprint as `ssh-keygen -l` prints it (`SHA256:` and unpadded
  /// base64), in the configuration's order.
  public var fingerprints: [String]
  /// The signer identity of the vendor's `allowed_signers` line (`-I`).
  public var identity: String
  /// The signature's namespace (`-n`).
  public var namespace: String
  /// Where the vendor publishes its `allowed_signers` line; nil: the README says to ask for it.
  public var allowedSignersURL: String?

  public init(fingerprints: [String], identity: String, namespace: String, allowedSignersURL: String? = nil) {
    self.fingerprints = fingerprints
    self.identity = identity
    self.namespace = namespace
    self.allowedSignersURL = allowedSignersURL
  }
}
