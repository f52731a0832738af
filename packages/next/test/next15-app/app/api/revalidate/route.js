import { revalidatePath, revalidateTag } from 'next/cache'

// ?path= : revalidatePath (revalidateTag of the path's implicit tag). ?tag= : revalidateTag (Next
// 15's takes the tag alone).
export async function POST(request) {
  const { searchParams } = new URL(request.url)
  const path = searchParams.get('path')
  const tag = searchParams.get('tag')
  if (path !== null) revalidatePath(path)
  if (tag !== null) revalidateTag(tag)
  return Response.json({ revalidated: path ?? tag })
}
