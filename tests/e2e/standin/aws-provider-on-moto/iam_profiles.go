package main

import (
	"context"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/arn"
	"github.com/aws/aws-sdk-go-v2/service/iam"
	iamtypes "github.com/aws/aws-sdk-go-v2/service/iam/types"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
)

// IAM instance profiles, service-linked roles and OpenID Connect providers (iam_roles_policies.go has roles,
// policies and attachments and the helpers they share).

// ---- aws:iam/instanceProfile:InstanceProfile ----------------------------------------------

var instanceProfileOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure { return checkIAMName(in, 128) },
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cl := c.aws().iam
		name := physicalName(in)
		if _, err := cl.CreateInstanceProfile(ctx, &iam.CreateInstanceProfileInput{
			InstanceProfileName: aws.String(name),
			Path:                aws.String(strOr(in, "path", "/")),
			Tags:                iamTags(stringMap(in, "tags")),
		}); err != nil {
			return "", fmt.Errorf("creating IAM Instance Profile (%s): %w", name, err)
		}
		if role := str(in, "role"); role != "" {
			if _, err := cl.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String(name), RoleName: aws.String(role)}); err != nil {
				return name, fmt.Errorf("adding IAM Role (%s) to IAM Instance Profile (%s): %w", role, name, err)
			}
		}
		return name, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		out, err := c.aws().iam.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(id)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading IAM Instance Profile (%s): %w", id, err)
		}
		p := out.InstanceProfile
		tags := fromIAMTags(p.Tags)
		outs := pmap{
			"arn":        sv(aws.ToString(p.Arn)),
			"createDate": rfc3339(p.CreateDate),
			"name":       sv(aws.ToString(p.InstanceProfileName)),
			"namePrefix": sv(namePrefixFromName(aws.ToString(p.InstanceProfileName))),
			"path":       sv(aws.ToString(p.Path)),
			"tags":       mapValue(tags),
			"tagsAll":    mapValue(tags),
			"uniqueId":   sv(aws.ToString(p.InstanceProfileId)),
		}
		if len(p.Roles) > 0 {
			outs["role"] = sv(aws.ToString(p.Roles[0].RoleName))
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		cl := c.aws().iam
		if o, n := str(state, "role"), str(newIn, "role"); o != n {
			if o != "" {
				if err := removeRoleFromInstanceProfile(ctx, cl, id, o); err != nil {
					return fmt.Errorf("removing IAM Role (%s) from IAM Instance Profile (%s): %w", o, id, err)
				}
			}
			if n != "" {
				if _, err := cl.AddRoleToInstanceProfile(ctx, &iam.AddRoleToInstanceProfileInput{InstanceProfileName: aws.String(id), RoleName: aws.String(n)}); err != nil {
					return fmt.Errorf("adding IAM Role (%s) to IAM Instance Profile (%s): %w", n, id, err)
				}
			}
		}
		return updateIAMTags(ctx, stringMap(oldIn, "tags"), stringMap(newIn, "tags"),
			func(keys []string) error {
				_, err := cl.UntagInstanceProfile(ctx, &iam.UntagInstanceProfileInput{InstanceProfileName: aws.String(id), TagKeys: keys})
				return err
			},
			func(tags []iamtypes.Tag) error {
				_, err := cl.TagInstanceProfile(ctx, &iam.TagInstanceProfileInput{InstanceProfileName: aws.String(id), Tags: tags})
				return err
			})
	},
	// As terraform's resourceInstanceProfileDelete: remove the profile's own role (its input),
	// then delete the profile.
	delete: func(ctx context.Context, c *call, id string, state pmap) error {
		cl := c.aws().iam
		if role := str(state, "role"); role != "" {
			if err := removeRoleFromInstanceProfile(ctx, cl, id, role); err != nil {
				return fmt.Errorf("removing IAM Role (%s) from IAM Instance Profile (%s): %w", role, id, err)
			}
		}
		if _, err := cl.DeleteInstanceProfile(ctx, &iam.DeleteInstanceProfileInput{InstanceProfileName: aws.String(id)}); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting IAM Instance Profile (%s): %w", id, err)
		}
		return nil
	},
}

// removeRoleFromInstanceProfile removes a role from a profile; a role that is no longer in it is
// removed, as terraform treats IAM's NoSuchEntity. moto 5.2.5 answers that case with HTTP 500
// (moto/iam/models.py remove_role_from_instance_profile: `profile.roles.remove(role)` raises
// ValueError) instead of NoSuchEntity — met when the call is repeated: an SDK retry of a call moto
// had processed, or another party (Karpenter) having removed the role. So after an error the
// profile is read, and a role no longer in it (or a profile gone) counts as removed.
func removeRoleFromInstanceProfile(ctx context.Context, cl *iam.Client, profile, role string) error {
	_, err := cl.RemoveRoleFromInstanceProfile(ctx, &iam.RemoveRoleFromInstanceProfileInput{InstanceProfileName: aws.String(profile), RoleName: aws.String(role)})
	if err == nil || isNotFound(err) {
		return nil
	}
	out, getErr := cl.GetInstanceProfile(ctx, &iam.GetInstanceProfileInput{InstanceProfileName: aws.String(profile)})
	if isNotFound(getErr) {
		return nil
	}
	if getErr != nil {
		return err
	}
	for _, r := range out.InstanceProfile.Roles {
		if aws.ToString(r.RoleName) == role {
			return err // still in the profile: a real failure
		}
	}
	return nil
}

// ---- aws:iam/serviceLinkedRole:ServiceLinkedRole ------------------------------------------

// decodeServiceLinkedRoleID is terraform's DecodeServiceLinkedRoleID:
// arn:PARTITION:iam::ACCOUNT:role/aws-service-role/SERVICENAME/ROLENAME.
func decodeServiceLinkedRoleID(id string) (service, role, suffix string, err error) {
	a, err := arn.Parse(id)
	if err != nil {
		return "", "", "", err
	}
	parts := strings.Split(a.Resource, "/")
	if len(parts) != 4 {
		return "", "", "", fmt.Errorf("expected IAM Service Role ARN (arn:PARTITION:iam::ACCOUNTID:role/aws-service-role/SERVICENAME/ROLENAME), received: %s", id)
	}
	service, role = parts[2], parts[3]
	if p := strings.Split(role, "_"); len(p) == 2 {
		suffix = p[1]
	}
	return service, role, suffix, nil
}

var serviceLinkedRoleOps = ops{
	check: func(in pmap) []*pulumirpc.CheckFailure {
		if v := str(in, "awsServiceName"); v != "" && !strings.Contains(v, ".") {
			return []*pulumirpc.CheckFailure{failure("awsServiceName", "must be a full service hostname e.g. elasticbeanstalk.amazonaws.com")}
		}
		return nil
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		cl := c.aws().iam
		input := &iam.CreateServiceLinkedRoleInput{AWSServiceName: aws.String(str(in, "awsServiceName"))}
		if has(in, "customSuffix") {
			input.CustomSuffix = aws.String(str(in, "customSuffix"))
		}
		if has(in, "description") {
			input.Description = aws.String(str(in, "description"))
		}
		out, err := cl.CreateServiceLinkedRole(ctx, input)
		if err != nil {
			return "", fmt.Errorf("creating IAM Service Linked Role (%s): %w", str(in, "awsServiceName"), err)
		}
		id := aws.ToString(out.Role.Arn)
		if tags := stringMap(in, "tags"); len(tags) > 0 {
			if _, err := cl.TagRole(ctx, &iam.TagRoleInput{RoleName: out.Role.RoleName, Tags: iamTags(tags)}); err != nil {
				return id, fmt.Errorf("creating IAM Service Linked Role (%s): adding tags: %w", str(in, "awsServiceName"), err)
			}
		}
		return id, nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		service, roleName, suffix, err := decodeServiceLinkedRoleID(id)
		if err != nil {
			return nil, err
		}
		out, err := c.aws().iam.GetRole(ctx, &iam.GetRoleInput{RoleName: aws.String(roleName)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading IAM Service Linked Role (%s): %w", id, err)
		}
		r := out.Role
		tags := fromIAMTags(r.Tags)
		outs := pmap{
			"arn":            sv(aws.ToString(r.Arn)),
			"awsServiceName": sv(service),
			"createDate":     rfc3339(r.CreateDate),
			"description":    sv(aws.ToString(r.Description)),
			"name":           sv(aws.ToString(r.RoleName)),
			"path":           sv(aws.ToString(r.Path)),
			"tags":           mapValue(tags),
			"tagsAll":        mapValue(tags),
			"uniqueId":       sv(aws.ToString(r.RoleId)),
		}
		if suffix != "" {
			outs["customSuffix"] = sv(suffix)
		}
		return outs, nil
	},
	update: func(ctx context.Context, c *call, id string, _, oldIn, newIn pmap) error {
		cl := c.aws().iam
		_, roleName, _, err := decodeServiceLinkedRoleID(id)
		if err != nil {
			return err
		}
		if str(oldIn, "description") != str(newIn, "description") {
			if _, err := cl.UpdateRole(ctx, &iam.UpdateRoleInput{RoleName: aws.String(roleName), Description: aws.String(str(newIn, "description"))}); err != nil {
				return fmt.Errorf("updating IAM Service Linked Role (%s): %w", id, err)
			}
		}
		return updateIAMTags(ctx, stringMap(oldIn, "tags"), stringMap(newIn, "tags"),
			func(keys []string) error {
				_, err := cl.UntagRole(ctx, &iam.UntagRoleInput{RoleName: aws.String(roleName), TagKeys: keys})
				return err
			},
			func(tags []iamtypes.Tag) error {
				_, err := cl.TagRole(ctx, &iam.TagRoleInput{RoleName: aws.String(roleName), Tags: tags})
				return err
			})
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		cl := c.aws().iam
		_, roleName, _, err := decodeServiceLinkedRoleID(id)
		if err != nil {
			return err
		}
		out, err := cl.DeleteServiceLinkedRole(ctx, &iam.DeleteServiceLinkedRoleInput{RoleName: aws.String(roleName)})
		if isNotFound(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("deleting IAM Service Linked Role (%s): %w", id, err)
		}
		// terraform waits for the deletion task to succeed.
		task := aws.ToString(out.DeletionTaskId)
		for deadline := time.Now().Add(time.Minute); task != "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			st, err := cl.GetServiceLinkedRoleDeletionStatus(ctx, &iam.GetServiceLinkedRoleDeletionStatusInput{DeletionTaskId: aws.String(task)})
			if err != nil {
				return fmt.Errorf("waiting for IAM Service Linked Role (%s) delete: %w", id, err)
			}
			switch st.Status {
			case iamtypes.DeletionTaskStatusTypeSucceeded:
				return nil
			case iamtypes.DeletionTaskStatusTypeFailed:
				return fmt.Errorf("IAM Service Linked Role (%s) deletion failed: %v", id, st.Reason)
			}
		}
		return nil
	},
}

// ---- aws:iam/openIdConnectProvider:OpenIdConnectProvider ----------------------------------

// The id is the provider's ARN, as terraform's d.SetId(OpenIDConnectProviderArn).
var openIDConnectProviderOps = ops{
	// terraform's validOpenIDURL: an https URL without a query; client IDs 1-255 characters,
	// thumbprints 40.
	check: func(in pmap) []*pulumirpc.CheckFailure {
		var out []*pulumirpc.CheckFailure
		if v := in["url"]; has(in, "url") && !unknown(v) {
			u, err := url.Parse(str(in, "url"))
			switch {
			case err != nil:
				out = append(out, failure("url", "%q: %v", "url", err))
			case u.Scheme != "https":
				out = append(out, failure("url", "%q must use HTTPS", "url"))
			case len(u.Query()) != 0:
				out = append(out, failure("url", "%q must not contain query parameters", "url"))
			}
		}
		for _, id := range stringList(in, "clientIdLists") {
			if len(id) < 1 || len(id) > 255 {
				out = append(out, failure("clientIdLists", "expected length of clientIdLists to be in the range (1 - 255), got %s", id))
			}
		}
		for _, tp := range stringList(in, "thumbprintLists") {
			if len(tp) != 40 {
				out = append(out, failure("thumbprintLists", "expected length of thumbprintLists to be in the range (40 - 40), got %s", tp))
			}
		}
		return out
	},
	create: func(ctx context.Context, c *call, in pmap) (string, error) {
		input := &iam.CreateOpenIDConnectProviderInput{
			ClientIDList: stringList(in, "clientIdLists"),
			Url:          aws.String(str(in, "url")),
			Tags:         iamTags(stringMap(in, "tags")),
		}
		if tp := stringList(in, "thumbprintLists"); len(tp) > 0 {
			input.ThumbprintList = tp
		}
		out, err := c.aws().iam.CreateOpenIDConnectProvider(ctx, input)
		if err != nil {
			return "", fmt.Errorf("creating IAM OIDC Provider: %w", err)
		}
		return aws.ToString(out.OpenIDConnectProviderArn), nil
	},
	read: func(ctx context.Context, c *call, id string, _ pmap) (pmap, error) {
		out, err := c.aws().iam.GetOpenIDConnectProvider(ctx, &iam.GetOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(id)})
		if isNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading IAM OIDC Provider (%s): %w", id, err)
		}
		tags := fromIAMTags(out.Tags)
		return pmap{
			"arn":             sv(id),
			"clientIdLists":   listValue(out.ClientIDList),
			"thumbprintLists": listValue(out.ThumbprintList),
			"url":             sv(aws.ToString(out.Url)),
			"tags":            mapValue(tags),
			"tagsAll":         mapValue(tags),
		}, nil
	},
	update: func(ctx context.Context, c *call, id string, state, oldIn, newIn pmap) error {
		cl := c.aws().iam
		arn := aws.String(id)
		if o, n := stringList(oldIn, "thumbprintLists"), stringList(newIn, "thumbprintLists"); len(n) > 0 && strings.Join(o, ",") != strings.Join(n, ",") {
			if _, err := cl.UpdateOpenIDConnectProviderThumbprint(ctx, &iam.UpdateOpenIDConnectProviderThumbprintInput{OpenIDConnectProviderArn: arn, ThumbprintList: n}); err != nil {
				return fmt.Errorf("updating IAM OIDC Provider (%s) thumbprint: %w", id, err)
			}
		}
		// moto 5.2.5 does not implement AddClientIDTo/RemoveClientIDFromOpenIDConnectProvider
		// (it answers 500): such an update fails with moto's error, as it should fail loudly.
		olds, news := setOf(stringList(oldIn, "clientIdLists")), setOf(stringList(newIn, "clientIdLists"))
		for _, v := range sortedKeys(news) {
			if _, ok := olds[v]; !ok {
				if _, err := cl.AddClientIDToOpenIDConnectProvider(ctx, &iam.AddClientIDToOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, ClientID: aws.String(v)}); err != nil {
					return fmt.Errorf("adding IAM OIDC Provider (%s) client ID (%s): %w", id, v, err)
				}
			}
		}
		for _, v := range sortedKeys(olds) {
			if _, ok := news[v]; !ok {
				if _, err := cl.RemoveClientIDFromOpenIDConnectProvider(ctx, &iam.RemoveClientIDFromOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, ClientID: aws.String(v)}); err != nil {
					return fmt.Errorf("removing IAM OIDC Provider (%s) client ID (%s): %w", id, v, err)
				}
			}
		}
		return updateIAMTags(ctx, stringMap(oldIn, "tags"), stringMap(newIn, "tags"),
			func(keys []string) error {
				_, err := cl.UntagOpenIDConnectProvider(ctx, &iam.UntagOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, TagKeys: keys})
				return err
			},
			func(tags []iamtypes.Tag) error {
				_, err := cl.TagOpenIDConnectProvider(ctx, &iam.TagOpenIDConnectProviderInput{OpenIDConnectProviderArn: arn, Tags: tags})
				return err
			})
	},
	delete: func(ctx context.Context, c *call, id string, _ pmap) error {
		if _, err := c.aws().iam.DeleteOpenIDConnectProvider(ctx, &iam.DeleteOpenIDConnectProviderInput{OpenIDConnectProviderArn: aws.String(id)}); err != nil && !isNotFound(err) {
			return fmt.Errorf("deleting IAM OIDC Provider (%s): %w", id, err)
		}
		return nil
	},
}

// sameOpenIDURL is terraform's suppressOpenIDURL: an OIDC provider's URL with or without its
// https:// scheme is the same URL.
func sameOpenIDURL(old, new string) bool {
	return strings.TrimPrefix(old, "https://") == strings.TrimPrefix(new, "https://")
}
