import Foundation
import ReleaseCLI
import ReleaseCore
import ReleaseSystem

// Before anything else runs (no other thread yet): the environment is read once and every
// secret in it overwritten where it was, so no child can read it from /proc/<pid>/environ.
// `verify` builds and runs the code under check, so it keeps no secret at all. A proxy with a
// credential is one of the secrets: libcurl gets it from `environment` (`Services.live`).
let arguments = Array(CommandLine.arguments.dropFirst())
let environment = SecretEnvironment.take(keepingSecrets: arguments.first != "verify")
SecretEnvironment.forbidInspection()
Interrupts.install()
exit(CommandLineInterface.main(arguments: arguments, services: .live(environment: environment)))
