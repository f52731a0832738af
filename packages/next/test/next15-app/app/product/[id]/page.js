// An ISR page kept an hour: the render's pid and time show who rendered it. Next 15 knows the
// lifetime of the paths generateStaticParams lists on every instance (the prerender manifest); of
// a path rendered on demand, only the instance that rendered it knows it (Next 15 reads no
// cacheControl back from a cache handler), so the others take it for 1 s.
export const revalidate = 3600
export const dynamicParams = true
export async function generateStaticParams() {
  return ['1', '2', '3', '4'].map((id) => ({ id }))
}

export default async function Product({ params }) {
  const { id } = await params
  return <p id="rendered">{`product ${id} rendered by ${process.pid} at ${Date.now()}`}</p>
}
