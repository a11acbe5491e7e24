enum BenchMain {}
