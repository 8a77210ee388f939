import { computed, signal } from "@preact/signals";
import { api } from "./api";
import type { InstanceIdentity } from "./types";

/** The instance's identity; null until the first answer (or when the server could not be asked). */
export const identity = signal<InstanceIdentity | null>(null);

/** The instance's name, in the header and every page title; the product's name until the identity is known. */
export const instanceName = computed(() => identity.value?.name ?? "socialctl");

/** Reads the identity again, after an administrator changed it (the app's start brings the first). */
export async function loadIdentity(): Promise<InstanceIdentity> {
  const { instance } = await api.get<{ instance: InstanceIdentity }>("/instance");
  identity.value = instance;
  return instance;
}

/** A contact as a link: an e-mail address becomes mailto:, an http(s) address stays; anything else is text. */
export function contactHref(contact: string): string | null {
  if (/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(contact)) return `mailto:${contact}`;
  if (/^https?:\/\/\S+$/i.test(contact)) return contact;
  return null;
}
