//go:build tools

// Package tools pins Pulumi YAML's language host and its converter (the program
// converter of `pulumi convert`, whose default `--from` is yaml) so that `go build` in
// this wrapper module builds `pulumi-language-yaml` and `pulumi-converter-yaml` at the
// version in go.mod (see scripts/pulumi-install.ts). It is a module of its own, not a
// requirement of the CLI's (../go.mod): pulumi-yaml v1.25.0 does not compile against
// pkg/v3 v3.274.1 (schema.NewPluginLoader's signature changed), and a separate process
// talks to the CLI over gRPC only, so each builds with the versions it was released with.
package tools

import (
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-converter-yaml"
	_ "github.com/pulumi/pulumi-yaml/cmd/pulumi-language-yaml"
)
