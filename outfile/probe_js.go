package outfile

// probe: js/wasm (the web page) has no access(2); a directory that cannot
// be written fails at the first file written into it.
func probe(string) error { return nil }
