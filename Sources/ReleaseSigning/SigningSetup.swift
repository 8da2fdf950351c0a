import Foundation

/// The keys of one run: the public keys every package pins and every check trusts
/// (`release.config.json`'s `signing.trustedKeys`), and the private keys it signs with, each the
/// private half of a trusted key (`--signing-key`, `RELEASE_SIGNING_KEY`). Both empty: the run
/// neither signs nor pins.
public struct SigningSetup: Equatable, Sendable {
  /// In the configuration's order, each once.
  public var trusted: [PublicKey]
  /// In the order given; empty when no private key was given.
  public var signers: [SigningKey]
  /// Whether a customer index published unsigned is taken, once, and signed
  /// (`--adopt-unsigned-index`); otherwise a run with trusted keys refuses one.
  public var adoptUnsignedIndexes = false

  public init(trusted: [PublicKey] = [], signers: [SigningKey] = []) {
    self.trusted = trusted
    self.signers = signers
  }

  /// Whether packages pin keys (and so get the signed channel).
  public var hasTrustedKeys: Bool { !trusted.isEmpty }
  /// Whether this run can sign.
  public var canSign: Bool { !signers.isEmpty }

  // Private keys compare by their public halves: the seed is never looked at.
  public static func == (lhs: SigningSetup, rhs: SigningSetup) -> Bool {
    lhs.trusted == rhs.trusted && lhs.signers.map(\.keyID) == rhs.signers.map(\.keyID)
      && lhs.adoptUnsignedIndexes == rhs.adoptUnsignedIndexes
  }
}
