package main

import (
	"fmt"
	"os"
	"regexp"

	"github.com/zonesync/zonesync/provider/rfc2136"
)

// The parts of a BIND key statement, as tsig-keygen writes it:
//
//	key "zonesync-example" {
//		algorithm hmac-sha256;
//		secret "rHMX...Dkc=";
//	};
var (
	keyNameRE   = regexp.MustCompile(`\bkey\s+"?([^"\s{]+)"?\s*\{`)
	keyAlgRE    = regexp.MustCompile(`\balgorithm\s+"?([A-Za-z0-9.-]+)"?\s*;`)
	keySecretRE = regexp.MustCompile(`\bsecret\s+"([^"]*)"\s*;`)
)

// readTSIGKey reads the TSIG key of a BIND key file, the file named.conf
// includes, so that the program and the server share one copy of the
// secret. The file must hold exactly one key statement. The secret itself is
// checked by rfc2136.New, which says what is wrong without printing it.
func readTSIGKey(path string) (*rfc2136.TSIG, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("TSIG key file: %w", err)
	}
	names := keyNameRE.FindAllSubmatch(data, -1)
	if len(names) != 1 {
		return nil, fmt.Errorf("TSIG key file %s: found %d key statements, want one (as tsig-keygen writes: key \"name\" { algorithm ...; secret \"...\"; };)", path, len(names))
	}
	alg := keyAlgRE.FindSubmatch(data)
	if alg == nil {
		return nil, fmt.Errorf("TSIG key file %s: key %q has no algorithm statement", path, names[0][1])
	}
	secret := keySecretRE.FindSubmatch(data)
	if secret == nil {
		return nil, fmt.Errorf("TSIG key file %s: key %q has no secret statement", path, names[0][1])
	}
	return &rfc2136.TSIG{KeyName: string(names[0][1]), Algorithm: string(alg[1]), Secret: string(secret[1])}, nil
}
