/** Saves TEXT as a file called NAME through the browser's download (a Blob URL, so no size limit of data: URLs). */
export function saveFile(name: string, text: string, type = "text/plain;charset=utf-8"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  // the download has started by now; the URL is not needed beyond this task
  setTimeout(() => URL.revokeObjectURL(url), 0);
}
