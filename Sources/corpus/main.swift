import CorpusCLI
import Foundation

exit(await CorpusCommand.main(CommandLine.arguments))
