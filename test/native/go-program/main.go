// A Go program of native resources, for test/native/go-lifecycle.test.ts: the same
// endpoint and inbox as the YAML program of yaml-lifecycle.test.ts, through the released
// Go SDK module (github.com/pulumi-svc/pulumi-svc/sdk, `npm run release`), and a read function.
package main

import (
	"github.com/pulumi-svc/pulumi-svc/sdk/go/svc/inboxes"
	"github.com/pulumi-svc/pulumi-svc/sdk/go/svc/webhooks"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi/config"
)

func main() {
	pulumi.Run(func(ctx *pulumi.Context) error {
		cfg := config.New(ctx, "")
		orders, err := webhooks.NewEndpoint(ctx, "orders", &webhooks.EndpointArgs{
			Url:         pulumi.String("https://hooks.example.com/orders"),
			Description: pulumi.String(cfg.Require("description")),
			MaxAttempts: pulumi.Int(5),
			CustomHeaders: pulumi.StringMap{
				"X-Team":        pulumi.String("fulfilment"),
				"Authorization": cfg.RequireSecret("token"),
			},
		})
		if err != nil {
			return err
		}
		bin, err := inboxes.NewInbox(ctx, "bin", &inboxes.InboxArgs{
			Label: pulumi.String(cfg.Require("label")),
		})
		if err != nil {
			return err
		}
		ctx.Export("endpointId", orders.ID())
		ctx.Export("inboxId", bin.ID())
		// A read function (the plugin's Invoke), once the endpoint exists: every endpoint of its project.
		listed := webhooks.GetEndpointsOutput(ctx, webhooks.GetEndpointsOutputArgs{ProjectId: orders.ProjectId})
		ctx.Export("listedUrls", listed.Items().ApplyT(func(eps []webhooks.EndpointInfo) []string {
			urls := []string{}
			for _, ep := range eps {
				urls = append(urls, ep.Url)
			}
			return urls
		}).(pulumi.StringArrayOutput))
		return nil
	})
}
