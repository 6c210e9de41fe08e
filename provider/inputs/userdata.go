package inputs

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"net/mail"
	"strings"

	"github.com/pulumi-karpenter/pulumi-karpenter/provider/field"

	"github.com/BurntSushi/toml"
)

// Karpenter merges a node class's userData with the AMI family's bootstrap when it launches a
// node (karpenter-provider-aws v1.15.1, pkg/providers/amifamily/bootstrap); user data it cannot
// merge fails every launch from the class, while the class reports Ready. checkUserData refuses
// at preview what that merge would refuse:
//   - Bottlerocket: the user data is TOML settings Karpenter merges its own into; it must parse.
//   - AL2, AL2023 and Ubuntu: user data that starts with `MIME-Version:` or `Content-Type:` is
//     taken as a MIME multi-part archive and must be one; anything else is wrapped (a NodeConfig
//     when it is YAML on AL2023, a shell script otherwise).
//   - Windows and Custom: passed to the instance as it is.
func checkUserData(path *field.Path, userData, family string) error {
	switch family {
	case "Bottlerocket":
		var settings map[string]any
		if _, err := toml.Decode(userData, &settings); err != nil {
			return field.Invalidf(path, "Bottlerocket user data is TOML settings, which Karpenter merges its own into, and this is not TOML (%v): no node would launch", err)
		}
	case "AL2", "AL2023", "Ubuntu":
		trimmed := strings.TrimSpace(userData)
		if strings.HasPrefix(trimmed, "MIME-Version:") || strings.HasPrefix(trimmed, "Content-Type:") {
			if err := readMIMEArchive(userData); err != nil {
				return field.Invalidf(path, "starts like a MIME multi-part archive but is not one (%v), so Karpenter cannot merge it with the %s bootstrap and no node would launch", err, family).
					WithHint("give a multipart archive with its boundary, or plain content, which Karpenter wraps")
			}
		}
	}
	return nil
}

// readMIMEArchive reads a multi-part archive the way Karpenter does.
func readMIMEArchive(content string) error {
	msg, err := mail.ReadMessage(strings.NewReader(content))
	if err != nil {
		return err
	}
	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		return fmt.Errorf("no Content-Type header: %w", err)
	}
	if !strings.HasPrefix(mediaType, "multipart/") {
		return fmt.Errorf("Content-Type %s is not multipart", mediaType)
	}
	reader := multipart.NewReader(msg.Body, params["boundary"])
	for {
		part, err := reader.NextPart()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := io.ReadAll(part); err != nil {
			return err
		}
	}
}
