import Foundation
import ReleaseKit
import ReleaseSystem

Interrupts.install()
exit(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
