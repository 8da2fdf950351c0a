import Foundation
import ReleaseCLI
import ReleaseSystem

Interrupts.install()
exit(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
