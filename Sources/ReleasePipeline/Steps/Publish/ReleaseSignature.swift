import Foundation
import ReleaseCore
import ReleasePublishing
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// A release zip's signature, `<zip>.sig` beside it: an OpenSSH file signature (SSHSIG,
/// Ed25519, hash sha512) in the namespace `contextsdk-release`, which a customer checks with
/// `ssh-keygen -Y verify -f allowed_signers -I <identity> -n contextsdk-release -s <zip>.sig < <zip>`.
package enum ReleaseSignature {
  package static let namespace = "contextsdk-release"
  package static let suffix = ".sig"
  /// The signer identity of the `allowed_signers` line customers check releases with
  /// (`release keys allowed-signers` without `--identity`), named in every signed package's README.
  package static let defaultIdentity = "release@contextsdk"

  /// Why publishing refuses to start: trusted keys and no private key to sign with.
  package static let missingSigner =
    "signing.trustedKeys is configured, so publishing signs every release, and no private key was given: set RELEASE_SIGNING_KEY or pass --signing-key <file> (check it with 'release keys check')"

  /// Refuses (exit 2, one line) a publishing run that must sign and cannot.
  package static func checkCanSign(_ settings: RunSettings) throws {
    guard !settings.publishing.destinations.isEmpty, settings.signing.hasTrustedKeys,
      !settings.signing.canSign
    else { return }
    throw ReleaseError.invalidInput(missingSigner)
  }

  /// Signs the zip with the run's first signer (an SSHSIG holds one signature) and checks the
  /// result against the trusted keys before returning it: a signature no customer could check
  /// is never published.
  static func sign(zipAt zip: URL, _ signing: SigningSetup) throws -> String {
    guard let signer = signing.signers.first else { throw ReleaseError.invalidInput(missingSigner) }
    let armored = try SSHSignature.sign(fileAt: zip, namespace: namespace, with: signer)
    _ = try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: signing.trusted)
    return armored
  }

  /// The trusted key that signed the zip, or why the signature is refused (one line).
  package static func verify(zipAt zip: URL, signature: Data, trusted: [PublicKey]) -> Result<
    PublicKey, SSHSignatureError
  > {
    let armored = String(decoding: signature, as: UTF8.self)
    do {
      return .success(
        try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: trusted))
    } catch let error as SSHSignatureError {
      return .failure(error)
    } catch {
      return .failure(.malformed("the zip cannot be read: \(error)"))
    }
  }
}

extension CustomerIndex {
  /// Why a plain index is refused by a run with trusted keys, naming the one way to take it.
  static let unsignedIndexReason =
    "it is plain JSON, not signed, and this run trusts keys (signing.trustedKeys): anyone who can write the destination could have put it there; check it, then publish once with \(adoptUnsignedIndexFlag) to sign it"
  /// The flag that adopts an existing unsigned customer index once (see `decode`).
  package static let adoptUnsignedIndexFlag = "--adopt-unsigned-index"

  /// A signed customer index is a DSSE envelope of the index's JSON with this type.
  package static let payloadType = "application/vnd.contextsdk.release-index+json"

  /// The bytes to publish: the index's JSON, or, with signers, its DSSE envelope (checked
  /// against the trusted keys before it is returned).
  func encoded(_ signing: SigningSetup) throws -> Data {
    let json = try StableJSON.encode(self)
    guard signing.canSign else { return json }
    let envelope = try DSSEEnvelope.sign(payload: json, payloadType: Self.payloadType, with: signing.signers)
    let bytes = try envelope.jsonData()
    _ = try DSSEEnvelope.verify(json: bytes, payloadType: Self.payloadType, trustedKeys: signing.trusted)
    return bytes
  }

  /// Reads a published customer index, plain JSON or a DSSE envelope. `trusted`: the keys an
  /// envelope must be signed with; nil reads an envelope's payload without checking it (to
  /// find what a share link points at), and none (a run without trusted keys) refuses an
  /// envelope, which that run could neither check nor sign again. With trusted keys a plain
  /// index is refused unless `adoptUnsigned` (`--adopt-unsigned-index`, once, for an index
  /// published before the keys): anyone who can write the destination could have put it there,
  /// and the run would merge and sign what it lists.
  package static func decode(
    _ data: Data, trusted: [PublicKey]?, location: String, adoptUnsigned: Bool = false
  ) throws -> CustomerIndex {
    var payload = data
    if let trusted, !trusted.isEmpty, !adoptUnsigned, !isEnvelope(data) {
      throw PublishError.unreadableIndex(location: location, reason: unsignedIndexReason)
    }
    if isEnvelope(data) {
      do {
        let envelope = try DSSEEnvelope(json: data)
        if let trusted {
          guard !trusted.isEmpty else {
            throw PublishError.unreadableIndex(
              location: location,
              reason:
                "it is signed, and this run trusts no key (signing.trustedKeys) to check it and sign it again"
            )
          }
          payload = try envelope.verify(payloadType: payloadType, trustedKeys: trusted).payload
        } else {
          guard envelope.payloadType == payloadType else {
            throw DSSEError.wrongPayloadType(expected: payloadType, found: envelope.payloadType)
          }
          payload = envelope.payload
        }
      } catch let error as DSSEError {
        throw PublishError.unreadableIndex(location: location, reason: error.description)
      }
    }
    do { return try JSONDecoder().decode(CustomerIndex.self, from: payload) } catch {
      throw PublishError.unreadableIndex(location: location, reason: "\(error)")
    }
  }

  /// A JSON object with a `payloadType`: an envelope, not an index.
  private static func isEnvelope(_ data: Data) -> Bool {
    (try? JSONSerialization.jsonObject(with: data) as? [String: Any])?["payloadType"] != nil
  }
}
