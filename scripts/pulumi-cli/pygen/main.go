// Command pulumi-svc-python-gen is the code-generation half of our Python language host
// (../python-host.ts). `pulumi package gen-sdk --language python` asks the language host
// to GeneratePackage; Pulumi's Python SDK generator is Go code in the CLI's own module
// (github.com/pulumi/pulumi/pkg/v3/codegen/python), which the Go module proxy serves,
// while the module of Pulumi's Python host is refused. So the host hands the request over
// as it came (a serialized GeneratePackageRequest on stdin) and passes back what this
// writes on stdout (a serialized GeneratePackageResponse); a failure is a message on
// stderr and exit code 1.
//
// It is a package of the CLI's wrapper module (../go.mod): it builds with the exact
// versions the CLI was built with, from the same go.sum.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pulumi/pulumi/pkg/v3/codegen/python"
	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/pkg/v3/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/protobuf/proto"
)

func main() {
	if err := generate(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-svc-python-gen: %v\n", err)
		os.Exit(1)
	}
}

func generate(in io.Reader, out io.Writer) error {
	raw, err := io.ReadAll(in)
	if err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	var req pulumirpc.GeneratePackageRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		return fmt.Errorf("decoding the request: %w", err)
	}
	var spec schema.PackageSpec
	if err := json.Unmarshal([]byte(req.Schema), &spec); err != nil {
		return fmt.Errorf("decoding the schema: %w", err)
	}
	// Packages the schema refers to come from the CLI's schema loader, as for every language.
	client, err := schema.NewLoaderClient(req.LoaderTarget)
	if err != nil {
		return fmt.Errorf("connecting to the schema loader %q: %w", req.LoaderTarget, err)
	}
	defer client.Close()
	loader := schema.NewCachedLoader(client)

	pkg, diags, err := schema.BindSpec(spec, loader, schema.ValidationOptions{AllowDanglingReferences: true})
	if err != nil {
		return fmt.Errorf("binding the schema: %w", err)
	}
	res := &pulumirpc.GeneratePackageResponse{Diagnostics: plugin.HclDiagnosticsToRPCDiagnostics(diags)}
	if !diags.HasErrors() {
		files, err := python.GeneratePackage("pulumi-language-python", pkg, req.ExtraFiles, loader)
		if err != nil {
			return fmt.Errorf("generating the Python package: %w", err)
		}
		for name, data := range files {
			target := filepath.Join(req.Directory, name)
			if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
				return err
			}
			if err := os.WriteFile(target, data, 0o600); err != nil {
				return err
			}
		}
	}
	encoded, err := proto.Marshal(res)
	if err != nil {
		return err
	}
	_, err = out.Write(encoded)
	return err
}
