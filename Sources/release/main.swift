import Foundation
import ReleaseKit

exit(CommandLineInterface.main(arguments: Array(CommandLine.arguments.dropFirst())))
