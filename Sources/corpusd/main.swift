import CorpusCLI
import Foundation

exit(await CorpusdCommand.main(CommandLine.arguments))
