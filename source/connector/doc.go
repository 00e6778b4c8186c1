// Package connector speaks external-dns's connector source protocol: a
// plain TCP exchange in which the client dials, sends nothing and reads one
// encoding/gob value holding a list of endpoints.
//
// [Connector] (built with [New]) is the client, a [source.Source] that
// reads a server's list on every Endpoints call; [Serve] is the server,
// which answers each connection with the endpoints a function returns, in
// the format external-dns's --source=connector reads. Either side can face
// an external-dns program.
//
//	src, err := connector.New("dns-source.example.svc:8080", connector.Options{})
//	if err != nil {
//		return err
//	}
//	rec := &zonesync.Reconciler{Source: src, Registry: reg}
//
// # Hostile servers
//
// What a server sends is outside input: a Connector bounds the bytes it
// reads ([Options.MaxBytes]) and the memory they decode to
// ([MaxDecodedPerByte]). For that it decodes the gob stream with a decoder
// of its own rather than encoding/gob, which sizes a map from the count
// the sender declares before reading any entry: behind an io.LimitReader,
// a 303-byte stream declaring 2^28 labels makes encoding/gob (Go 1.26)
// allocate 21 GB, and 2 MiB of empty endpoints decode to 616 MB (294
// bytes per byte), against 6 KB and 3.6 MB here. This decoder checks every
// declared count against the bytes that arrived and reads the same lists
// two to three times as fast as encoding/gob with half the memory
// (BenchmarkDecode).
//
// The package holds no state; a Connector is safe for concurrent use.
package connector
