import { revalidatePath } from 'next/cache'

// revalidatePath is revalidateTag of the path's implicit tag.
export async function POST(request) {
  const path = new URL(request.url).searchParams.get('path')
  revalidatePath(path)
  return Response.json({ revalidated: path })
}
