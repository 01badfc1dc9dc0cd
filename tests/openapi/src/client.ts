// A small client of the Loadline API written against the types that
// openapi-typescript generates from docs/openapi.json (into generated/, not
// committed).  scripts/openapi-check type-checks it with `tsc --noEmit`: a
// breaking change in the document (a renamed path, field or state, a
// changed type) fails `make check` here, as it would break an integrator.
import type { components, paths } from "../generated/loadline";

type ImportRun = components["schemas"]["ImportRun"];
type RunState = components["schemas"]["RunState"];
type Problem = components["schemas"]["Problem"];
type Upload = paths["/api/v1/imports/jobs"]["post"];
type Accepted = Upload["responses"][202]["content"]["application/json"];
type GetRun = paths["/api/v1/imports/runs/{id}"]["get"];
type Results = paths["/api/v1/imports/runs/{id}/results/{bucket}"]["get"];
type Bucket = Results["parameters"]["path"]["bucket"];
type RunList = paths["/api/v1/imports/runs"]["get"]["responses"][200]["content"]["application/json"];
type Whoami = paths["/api/v1/whoami"]["get"]["responses"][200]["content"]["application/json"];

const TERMINAL: readonly RunState[] = ["SUCCEEDED", "PARTIAL", "FAILED", "SKIPPED", "CANCELLED"];
const BUCKETS: readonly Bucket[] = ["succeeded", "warnings", "failed", "skipped"];

export class LoadlineClient {
  constructor(private readonly baseUrl: string, private readonly token: string) {}

  private async call<T>(path: string, init: RequestInit = {}): Promise<T> {
    const headers = new Headers(init.headers);
    headers.set("Authorization", `Bearer ${this.token}`);
    const res = await fetch(this.baseUrl + path, { ...init, headers });
    if (!res.ok) {
      const p = (await res.json()) as Problem;
      throw new Error(`${res.status} ${p.code}: ${p.detail ?? p.title}`);
    }
    return (await res.json()) as T;
  }

  whoami(): Promise<Whoami> {
    return this.call<Whoami>("/api/v1/whoami");
  }

  async push(file: Blob, name: string, dryRun = false): Promise<Accepted> {
    const form = new FormData();
    form.append("file", file, name);
    const headers: Upload["parameters"]["header"] = dryRun ? { "Service-Dry-Run": "true" } : {};
    return this.call<Accepted>("/api/v1/imports/jobs", {
      method: "POST",
      body: form,
      headers: headers as Record<string, string>,
    });
  }

  async wait(run: ImportRun): Promise<ImportRun> {
    let delay = 5;
    const id: GetRun["parameters"]["path"]["id"] = run.id;
    while (!TERMINAL.includes(run.state) && !run.nextAction) {
      await new Promise((r) => setTimeout(r, delay * 1000));
      delay = Math.min(delay * 2, 30);
      run = await this.call<GetRun["responses"][200]["content"]["application/json"]>(`/api/v1/imports/runs/${id}`);
    }
    return run;
  }

  async failedRows(run: ImportRun): Promise<number[]> {
    const rows: number[] = [];
    let next: string | null = `/api/v1/imports/runs/${run.id}/results/failed`;
    while (next) {
      const page: Results["responses"][200]["content"]["application/json"] =
        await this.call<Results["responses"][200]["content"]["application/json"]>(next);
      for (const r of page.data) rows.push(r.rowIndex);
      next = page.nextPageUrl;
    }
    return rows;
  }

  async recent(limit = 20): Promise<string[]> {
    const list = await this.call<RunList>(`/api/v1/imports/runs?limit=${limit}`);
    return list.data.map((r) => `${r.id} ${r.state} ${r.counts.succeeded}/${r.counts.failed}`);
  }
}

export function summary(run: ImportRun): string {
  const c = run.counts;
  const review = run.nextAction ? ` review: ${run.nextAction.url}` : "";
  const error = run.error ? ` ${run.error.code}: ${run.error.message}` : "";
  return `${run.id} ${run.state}: ${c.succeeded} succeeded, ${c.warnings} warnings, ${c.failed} failed, ` +
    `${c.skipped} skipped (${run.file.format})${review}${error}`;
}

export { BUCKETS };
