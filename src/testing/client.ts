export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * An HTTP client with a cookie jar, speaking to a real server as a program would:
 * it fetches a CSRF token before its first mutating request and sends it as x-csrf-token.
 * SEND carries each request (fetch over the network; an in-process app's own, src/testing/in-process.ts).
 */
export class TestClient {
  readonly cookies = new Map<string, string>();
  csrf: string | null = null;
  userAgent = "socialctl-tests/1.0";

  constructor(
    readonly baseUrl: string,
    private readonly send: (url: string, init: RequestInit) => Promise<Response> = fetch,
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    opts: { headers?: Record<string, string>; csrf?: boolean } = {},
  ): Promise<ApiResponse<T>> {
    const mutating = !["GET", "HEAD"].includes(method);
    if (mutating && opts.csrf !== false && !this.csrf) await this.fetchCsrf();
    const headers: Record<string, string> = { "user-agent": this.userAgent, ...opts.headers };
    if (this.cookies.size) headers.cookie = this.cookieHeader();
    if (mutating && opts.csrf !== false && this.csrf) headers["x-csrf-token"] ??= this.csrf;
    let payload: FormData | string | undefined;
    if (body instanceof FormData) payload = body;
    else if (body !== undefined) {
      headers["content-type"] ??= "application/json";
      payload = typeof body === "string" ? body : JSON.stringify(body);
    }
    const res = await this.send(this.baseUrl + path, { method, headers, body: payload, redirect: "manual" });
    this.storeCookies(res.headers);
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // non-JSON bodies (files, pages) stay text
    }
    return { status: res.status, headers: res.headers, body: parsed as T };
  }

  get = <T = any>(path: string, opts?: { headers?: Record<string, string> }) =>
    this.request<T>("GET", path, undefined, opts);
  post = <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; csrf?: boolean }) =>
    this.request<T>("POST", path, body ?? {}, opts);
  patch = <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; csrf?: boolean }) =>
    this.request<T>("PATCH", path, body ?? {}, opts);
  put = <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; csrf?: boolean }) =>
    this.request<T>("PUT", path, body ?? {}, opts);
  delete = <T = any>(path: string, body?: unknown, opts?: { headers?: Record<string, string>; csrf?: boolean }) =>
    this.request<T>("DELETE", path, body, opts);

  /** The jar as a Cookie header value, for raw fetch, socket and WebSocket requests. */
  cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("; ");
  }

  async fetchCsrf(): Promise<string> {
    const res = await this.get("/api/auth/csrf");
    this.csrf = res.body.data.csrfToken;
    return this.csrf!;
  }

  async login(email: string, password: string, twoFactorCode?: string): Promise<ApiResponse> {
    return this.post("/api/auth/login", { email, password, ...(twoFactorCode ? { twoFactorCode } : {}) });
  }

  private storeCookies(headers: Headers) {
    for (const line of headers.getSetCookie()) {
      const [pair, ...attrs] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq).trim();
      const value = decodeURIComponent(pair!.slice(eq + 1).trim());
      const maxAge = attrs.map((a) => a.trim()).find((a) => a.toLowerCase().startsWith("max-age="));
      if (maxAge && Number(maxAge.split("=")[1]) <= 0) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
}

/** What a client is made for: a server at its URL, or an in-process app, which makes its own clients. */
export interface Reachable {
  url: string;
  client?: () => TestClient;
}

/** A new client for INSTANCE: a server's over the network, an in-process app's through its own `client()`. */
export const clientOf = (instance: Reachable): TestClient => instance.client?.() ?? new TestClient(instance.url);
