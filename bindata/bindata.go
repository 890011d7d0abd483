// Package bindata embeds the operator's YAML assets: the operand's object
// templates and the default scheduler configuration.
package bindata

import (
	"embed"
	"fmt"
)

//go:embed assets
var assets embed.FS

// Asset returns the embedded file at name, e.g. "assets/secondary-scheduler/serviceaccount.yaml".
// Its signature is library-go's resourceapply.AssetFunc.
func Asset(name string) ([]byte, error) {
	b, err := assets.ReadFile(name)
	if err != nil {
		return nil, fmt.Errorf("asset %s: %w", name, err)
	}
	return b, nil
}

// MustAsset is Asset for names the operator itself hard-codes: a missing one is a
// build bug, never a user error.
func MustAsset(name string) []byte {
	b, err := Asset(name)
	if err != nil {
		panic(err)
	}
	return b
}
