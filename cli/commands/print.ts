import type { Command } from "commander";
import { CliError, emit } from "../output";
import { globals } from "../context";

/*
 * Deployment files printed by `socialctl print NAME`: the single source of the examples in
 * docs/operations.md (cli/commands/print.test.ts keeps the two identical).
 */
export const TEMPLATES = {
  systemd: {
    description: "systemd unit (/etc/systemd/system/socialctl.service)",
    text: `# /etc/systemd/system/socialctl.service
[Unit]
Description=socialctl social network
After=network-online.target
Wants=network-online.target

[Service]
User=social
Group=social
WorkingDirectory=/srv/social
Environment=SOCIAL_DATA_DIR=/srv/social/data
ExecStart=/usr/local/bin/socialctl serve --host 127.0.0.1 --port 3000
Restart=on-failure
# SIGTERM: stop accepting, finish in-flight requests, close the database
KillSignal=SIGTERM
TimeoutStopSec=30
LimitNOFILE=65536
NoNewPrivileges=true
ProtectSystem=strict
ProtectHome=true
PrivateTmp=true
ReadWritePaths=/srv/social

[Install]
WantedBy=multi-user.target
`,
  },
  caddy: {
    description: "Caddyfile site block: TLS, WebSocket, SSE and large uploads",
    text: `# With this proxy in front, trust its X-Forwarded-For (else every visitor shares one
# address's rate limits): socialctl config set trustProxy true, then restart socialctl.
social.example.com {
	request_body {
		max_size 130MB
	}
	reverse_proxy 127.0.0.1:3000 {
		flush_interval -1
		transport http {
			read_timeout 120s
		}
	}
}
`,
  },
  nginx: {
    description: "nginx server block: TLS, WebSocket, SSE, long polls and streamed uploads",
    text: `# With this proxy in front, trust its X-Forwarded-For (else every visitor shares one
# address's rate limits): socialctl config set trustProxy true, then restart socialctl.
map $http_upgrade $connection_upgrade {
    default upgrade;
    ''      close;
}

server {
    listen 443 ssl http2;
    server_name social.example.com;
    ssl_certificate     /etc/letsencrypt/live/social.example.com/fullchain.pem;
    ssl_certificate_key /etc/letsencrypt/live/social.example.com/privkey.pem;

    client_max_body_size 130m;

    location / {
        proxy_pass http://127.0.0.1:3000;
        proxy_http_version 1.1;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_set_header X-Real-IP $remote_addr;
        proxy_set_header X-Forwarded-Proto $scheme;
        # WebSocket
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        # SSE and long polls: no buffering, long reads
        proxy_buffering off;
        proxy_cache off;
        proxy_read_timeout 3600s;
        proxy_send_timeout 3600s;
        # large uploads stream through instead of being spooled to disk first
        proxy_request_buffering off;
    }
}
`,
  },
} as const;

type TemplateName = keyof typeof TEMPLATES;

/** socialctl print systemd|caddy|nginx */
export function registerPrint(program: Command) {
  program
    .command("print <name>")
    .description(`print a deployment file: ${Object.keys(TEMPLATES).join(", ")}`)
    .action((name: string, _f: unknown, cmd: Command) => {
      const opts = globals(cmd);
      if (!Object.hasOwn(TEMPLATES, name))
        throw new CliError(`unknown file ${name}: one of ${Object.keys(TEMPLATES).join(", ")}`);
      const t = TEMPLATES[name as TemplateName];
      // the text as it is (no added newline), so `socialctl print nginx > site.conf` is the file
      if (opts.json) emit(opts, { name, description: t.description, text: t.text }, "");
      else process.stdout.write(t.text);
    });
}
